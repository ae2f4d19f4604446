// Command simrun runs podsim's simulations. Until the scenario families land
// it runs a demonstration of the deterministic scheduler on a miniature of
// the kubelet's pending-update slot (BUGS.md B2, "lost kill through update
// coalescing"): it sweeps seeds under two strategies, reports which seeds
// lose the kill, and replays one of them to prove it reproduces byte for
// byte.
//
//	go run ./cmd/simrun                          sweep the default seeds
//	go run ./cmd/simrun -seeds 5000 -start 100   sweep another range
//	go run ./cmd/simrun -mailbox overwrite -seed 7 -trace
//	                                             replay one seed, print its trace
//
// Exit codes: 0 all checks passed, 1 a check failed, 2 bad usage.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/podsim/podsim/sim"
)

type config struct {
	seeds    uint64
	start    uint64
	seed     uint64
	oneSeed  bool
	strategy string
	mailbox  string
	trace    bool
}

// usageError is bad input: exit code 2.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	cfg, err := parse(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(stderr, "simrun:", err)
		return 2
	}
	if cfg.oneSeed {
		return replay(cfg, stdout, stderr)
	}
	return sweep(cfg, stdout)
}

func parse(args []string, stderr io.Writer) (config, error) {
	var cfg config
	fs := flag.NewFlagSet("simrun", flag.ContinueOnError)
	fs.SetOutput(io.Discard) // parse errors are reported once, by run

	fs.Uint64Var(&cfg.seeds, "seeds", 2000, "number of seeds per mailbox and strategy")
	fs.Uint64Var(&cfg.start, "start", 0, "first seed of the sweep")
	seed := fs.String("seed", "", "replay this one seed instead of sweeping (with -mailbox and -strategy)")
	fs.StringVar(&cfg.strategy, "strategy", "random", "strategy for -seed: random or pct")
	fs.StringVar(&cfg.mailbox, "mailbox", "overwrite", "mailbox for -seed: overwrite or sticky")
	fs.BoolVar(&cfg.trace, "trace", false, "with -seed, print the canonical trace")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(stderr, "usage: simrun [-seeds N] [-start S] | simrun -seed S [-mailbox overwrite|sticky] [-strategy random|pct] [-trace]")
			fs.SetOutput(stderr)
			fs.PrintDefaults()
			return cfg, err
		}
		return cfg, usageError{err.Error() + " (simrun -h lists the flags)"}
	}
	if fs.NArg() > 0 {
		return cfg, usageError{fmt.Sprintf("unexpected argument %q (the subcommands arrive with the full CLI)", fs.Arg(0))}
	}
	if *seed != "" {
		v, err := strconv.ParseUint(*seed, 10, 64)
		if err != nil {
			return cfg, usageError{fmt.Sprintf("malformed seed %q: want a non-negative integer", *seed)}
		}
		cfg.seed, cfg.oneSeed = v, true
	}
	if cfg.seeds == 0 || cfg.seeds > 10_000_000 {
		return cfg, usageError{fmt.Sprintf("-seeds %d: want 1 to 10,000,000", cfg.seeds)}
	}
	if _, err := strategyNamed(cfg.strategy); err != nil {
		return cfg, err
	}
	if cfg.mailbox != "overwrite" && cfg.mailbox != "sticky" {
		return cfg, usageError{fmt.Sprintf("unknown mailbox %q: want overwrite or sticky", cfg.mailbox)}
	}
	return cfg, nil
}

// pctSteps is PCT's k for this program: about 20 scheduling points a run.
const pctSteps = 20

func strategyNamed(name string) (sim.Strategy, error) {
	switch name {
	case "random":
		return sim.RandomWalk{}, nil
	case "pct":
		return sim.PCT{Depth: 2, Steps: pctSteps}, nil
	}
	return nil, usageError{fmt.Sprintf("unknown strategy %q: want random or pct", name)}
}

func options(strategy string, seed uint64) sim.Options {
	st, _ := strategyNamed(strategy)
	return sim.Options{Source: sim.NewPCG(sim.Derive(seed, "schedule")), Strategy: st}
}
