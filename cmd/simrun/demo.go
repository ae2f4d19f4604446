package main

import (
	"fmt"
	"io"
	"strings"
)

type sweepRow struct {
	mailbox, strategy string
	lost              int
	first             int64 // first seed that lost the kill, -1 for none
	steps             int64
}

// sweep runs every seed under both mailboxes and strategies. It passes when
// the sticky mailbox never loses a kill, the overwrite mailbox's loss is
// found, and the first losing seed replays to the same trace.
func sweep(cfg config, w io.Writer) int {
	fmt.Fprintf(w, "podsim demo: deterministic scheduler on the kubelet's pending-update slot (BUGS.md B2)\n")
	fmt.Fprintf(w, "a config client sends create, kill, update; a pod worker drains one pending slot.\n")
	fmt.Fprintf(w, "seeds %d..%d, each under a random walk and PCT(d=2)\n\n", cfg.start, cfg.start+cfg.seeds-1)
	fmt.Fprintf(w, "%-10s %-9s %8s %10s %11s %14s\n", "mailbox", "strategy", "seeds", "kill lost", "first seed", "avg decisions")
	var rows []sweepRow
	for _, mb := range []string{"overwrite", "sticky"} {
		for _, st := range []string{"random", "pct"} {
			r := sweepRow{mailbox: mb, strategy: st, first: -1}
			for seed := cfg.start; seed < cfg.start+cfg.seeds; seed++ {
				out, err := runMailbox(mb == "sticky", options(st, seed), false)
				if err != nil {
					fmt.Fprintf(w, "seed %d: %v\n", seed, err)
					return 1
				}
				r.steps += out.steps
				if out.lost {
					r.lost++
					if r.first < 0 {
						r.first = int64(seed)
					}
				}
			}
			rows = append(rows, r)
			first := "-"
			if r.first >= 0 {
				first = fmt.Sprint(r.first)
			}
			fmt.Fprintf(w, "%-10s %-9s %8d %10d %11s %14.1f\n", mb, st, cfg.seeds, r.lost, first, float64(r.steps)/float64(cfg.seeds))
		}
	}
	return verdict(cfg, rows, w)
}

func verdict(cfg config, rows []sweepRow, w io.Writer) int {
	fmt.Fprintln(w)
	failed := false
	for _, r := range rows {
		if r.mailbox == "sticky" && r.lost > 0 {
			fmt.Fprintf(w, "FAIL sticky mailbox lost a kill under %s; reproduce: go run ./cmd/simrun -mailbox sticky -strategy %s -seed %d -trace\n",
				r.strategy, r.strategy, r.first)
			failed = true
		}
	}
	r := rows[0]
	if r.first < 0 {
		fmt.Fprintf(w, "the overwrite mailbox's lost kill was not found in %d seeds (try more with -seeds)\n", cfg.seeds)
		return boolExit(failed)
	}
	a, _ := runMailbox(false, options(r.strategy, uint64(r.first)), true)
	b, _ := runMailbox(false, options(r.strategy, uint64(r.first)), true)
	if a.hash != b.hash {
		fmt.Fprintf(w, "FAIL nondeterminism: seed %d gave trace %s then %s\n", r.first, a.hash, b.hash)
		return 1
	}
	fmt.Fprintf(w, "seed %d loses the kill: the worker ran %s and never terminated the pod.\n", r.first, strings.Join(a.syncs, ", "))
	fmt.Fprintf(w, "replayed twice: trace sha256 %s both times.\n", a.hash)
	fmt.Fprintf(w, "reproduce: go run ./cmd/simrun -mailbox overwrite -strategy %s -seed %d -trace\n", r.strategy, r.first)
	return boolExit(failed)
}

// replay runs one seed and prints what happened.
func replay(cfg config, w, stderr io.Writer) int {
	out, err := runMailbox(cfg.mailbox == "sticky", options(cfg.strategy, cfg.seed), true)
	if err != nil {
		fmt.Fprintf(stderr, "simrun: seed %d: %v\n", cfg.seed, err)
		return 1
	}
	if cfg.trace {
		fmt.Fprint(w, out.trace)
	}
	fmt.Fprintf(w, "mailbox %s, strategy %s, seed %d: worker ran [%s]; kill lost: %v; %d decisions; trace sha256 %s\n",
		cfg.mailbox, cfg.strategy, cfg.seed, strings.Join(out.syncs, ", "), out.lost, out.steps, out.hash)
	if out.lost && cfg.mailbox == "sticky" {
		return 1
	}
	return 0
}

func boolExit(failed bool) int {
	if failed {
		return 1
	}
	return 0
}
