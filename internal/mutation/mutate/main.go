// Command mutate is podsim's mutation score (make mutation): it finds the
// mutants of the pod workers (workers/) and of the simulated kubelet's actors
// (world/), builds them all into one schema binary of the focused sweep
// (internal/mutation/sweep), runs the sweep once per mutant with that mutant
// switched on, and reports how many the sweep kills, by package and by
// operator, with every survivor's file:line. The workers' internal
// invariants do not count: only what a caller of the target can observe.
//
// Deterministic: the mutants come in file and source order, a sample (if
// asked for) is drawn from a seeded stream, and the sweep's verdict depends
// on the mutant alone. Mutants run --parallel at a time; one that runs past
// --timeout is killed and counted as killed by timeout, shown apart.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"
)

// runCtx ends the sweeps' processes on an interrupt.
var runCtx = context.Background()

// scope lists the files mutated, by package. Left out, and why:
// workers/invariants.go (the internal invariants, off in the score),
// workers/mutant_points.go and world/mutants.go (switches of catalogued
// bugs), workers/runtime_real.go (the real-goroutine runtime, never run by
// the simulated target), world/observe.go and world/view.go (what the
// oracles are shown, not an actor), world/marks.go (coverage marks),
// world/wrap.go and world/settle_control.go (tests' switches), doc.go files;
// the fake runtime's errshape.go (its choice of shape is checked by
// TestFailureShapes, docs/mutation.md) and faultpoints.go, left out as they
// were before the runtime moved from world/ to world/fakeruntime.
var scope = map[string][]string{
	"workers": {"complete.go", "errors.go", "grace.go", "known.go", "loop.go", "queries.go", "queue.go",
		"record.go", "seam.go", "snapshot.go", "static.go", "types.go", "update.go", "workers.go"},
	"world": {"actions.go", "admission.go", "cacheview.go", "events.go", "eviction.go", "kubelet.go", "reaper.go",
		"restart.go", "settle.go", "settle_quiet.go", "shutdown.go", "status.go", "world.go"},
	"world/fakeruntime": {"runtime.go"},
	"world/quiet":       {"resync.go", "skip.go", "static.go", "watch.go"},
}

// vkPackage and vkScope are the virtual-kubelet world's pod controller
// (its API server, informer, work queue, handlers and provider), mutated
// only with -vk and numbered after every mutant of scope, so that the
// numbers of the others do not move. Its faultpoints.go is left out, as
// the fake runtime's is.
const vkPackage = "vkworld"

var vkScope = []string{"api.go", "controller.go", "crash.go", "handlers.go", "informer.go", "provider.go", "queue.go",
	"world.go"}

type options struct {
	vk       bool
	root     string
	out      string
	sample   int
	seed     uint64
	parallel int
	timeout  time.Duration
	random   uint64
	pct      uint64
	deep     uint64
	only     string
	ids      string
	marks    bool
	partial  int // interrupted: the mutants chosen, of which the report holds fewer
	list     bool
	keep     string
}

func main() {
	var o options
	flag.StringVar(&o.root, "root", ".", "the module's root")
	flag.StringVar(&o.out, "out", "out", "directory for mutation.json, mutation.txt and hard-mutants.txt")
	flag.IntVar(&o.sample, "sample", 0, "mutants per package, drawn with --seed (0: every mutant)")
	flag.Uint64Var(&o.seed, "seed", 1, "seed of the sample")
	flag.IntVar(&o.parallel, "parallel", 2, "mutants run at once")
	flag.DurationVar(&o.timeout, "timeout", 3*time.Minute, "wall time per mutant's sweep; past it the mutant counts as killed by timeout")
	flag.Uint64Var(&o.random, "random", 20, "the sweep's random-walk seeds per family")
	flag.Uint64Var(&o.pct, "pct", 20, "the sweep's PCT seeds per family")
	flag.Uint64Var(&o.deep, "deep", 0, "random-walk seeds per family for the seeds-to-detection pass over survivors and PCT-only kills (0: no pass)")
	flag.StringVar(&o.only, "only", "", "run only the mutants whose id (file:line#index) contains this, or the one with this key")
	flag.StringVar(&o.ids, "ids", "", "run only the mutants this file names: numbers of this tree, or keys (k…, as -list prints; they survive renumbering)")
	flag.BoolVar(&o.marks, "marks", true, "count a mutant as killed when a coverage mark the unmutated sweep reaches stays at zero (false: runs only)")
	flag.BoolVar(&o.list, "list", false, "list the mutants and exit")
	flag.BoolVar(&o.vk, "vk", false, "also mutate the virtual-kubelet world (vkworld/), numbered after every other mutant")
	flag.StringVar(&o.keep, "keep", "", "copy the schema binary (the sweep; PODSIM_MUTANT=<id> switches a mutant on) to this path")
	flag.Parse()
	if flag.NArg() != 0 || o.parallel < 1 || o.timeout <= 0 || o.random+o.pct == 0 {
		fmt.Fprintln(os.Stderr, "mutate: bad flags (see -h)")
		os.Exit(2)
	}
	// Ctrl-C or SIGTERM stops the sweeps in flight (their processes are
	// killed through the context) and removes the temporary directory.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	runCtx = ctx
	if err := mutate(o); err != nil {
		fmt.Fprintln(os.Stderr, "mutate:", err)
		if errors.As(err, new(badInput)) {
			os.Exit(2)
		}
		os.Exit(1)
	}
}

func mutate(o options) error {
	all, err := findAll(o.root, o.vk)
	if err != nil {
		return err
	}
	chosen, err := choose(all, o)
	if err != nil {
		return err
	}
	if o.list {
		for _, e := range chosen {
			fmt.Printf("%d %s %s\n", e.ID, e.Key, e.Mutant)
		}
		return nil
	}
	dir, err := os.MkdirTemp("", "podsim-mutation-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	began := time.Now()
	b, err := buildSchema(o.root, dir, all)
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "built the schema binary (%d mutants, %d not viable) in %v\n", len(all)-len(b.dropped),
		len(b.dropped), time.Since(began).Round(time.Second))
	if err := b.checkPreserving(o); err != nil {
		return err
	}
	if o.keep != "" {
		if err := copyFile(b.bin, o.keep); err != nil {
			return err
		}
	}
	results := runAll(b, chosen, o)
	if runCtx.Err() != nil {
		// The mutants whose sweep finished before the interrupt are reported;
		// the report says how many of the chosen ones that is.
		results = finished(results)
		fmt.Fprintf(os.Stderr, "interrupted: reporting the %d of %d mutants that finished\n", len(results), len(chosen))
		o.partial = len(chosen)
	} else if o.deep > 0 {
		deepen(b, results, o)
	}
	rep := newReport(all, b.dropped, results, o, time.Since(began))
	out := o.out
	if !filepath.IsAbs(out) {
		out = filepath.Join(o.root, out)
	}
	return rep.write(os.Stdout, out)
}

// copyFile copies the executable at from to to.
func copyFile(from, to string) error {
	data, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return os.WriteFile(to, data, 0o755)
}
