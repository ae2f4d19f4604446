package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"sync"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/run"
	"github.com/podsim/podsim/sim"
)

type runFlags struct {
	scenario, strategy, seed, shard, jsonPath, outDir, junitPath string
	mutant                                                       string
	seeds, start                                                 uint64
	parallel, pctDepth                                           int
	forcePorcupine, noTiming                                     bool
}

func newRunCmd(stdout, stderr io.Writer) *cobra.Command {
	var f runFlags
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Sweep seeds of the scenario families and check every run",
		Example: "  simrun run\n  simrun run --scenario swarm --seeds 10000 --start 5000\n" +
			"  simrun run --shard 0/4 --json shard0.json",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runSweep(f, stdout, stderr) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.scenario, "scenario", "all", "scenario family, or all")
	fl.Uint64Var(&f.seeds, "seeds", 2000, "seeds per family")
	fl.Uint64Var(&f.start, "start", 0, "first seed")
	fl.StringVar(&f.seed, "seed", "", "run this one seed only")
	fl.StringVar(&f.strategy, "strategy", "random", "scheduling strategy: random or pct")
	fl.IntVar(&f.pctDepth, "pct-depth", 3, "bug depth PCT searches for")
	fl.IntVar(&f.parallel, "parallel", runtime.NumCPU(), "seeds run at once (results are the same at any value)")
	fl.StringVar(&f.shard, "shard", "", "K/N: run the K-th of N disjoint slices of the seeds (K = 0..N-1)")
	fl.StringVar(&f.jsonPath, "json", "", "write per-seed results as JSON to this file")
	fl.StringVar(&f.junitPath, "junit", "", "write per-seed results as JUnit XML to this file (one suite per family)")
	fl.StringVar(&f.outDir, "out", "", "write each failing seed's artifacts (trace, verdict, porcupine HTML) under DIR/<scenario>/seed-<n>/")
	fl.BoolVar(&f.forcePorcupine, "force-porcupine", false, "run porcupine's search on every history")
	fl.StringVar(&f.mutant, "mutant", "", "re-introduce this catalogued bug (simrun list)")
	fl.BoolVar(&f.noTiming, "no-timing", false, "leave the seeds/s column out of the table (stdout then depends on the results alone)")
	return cmd
}

// job is one seed of one family.
type job struct {
	family plan.Family
	seed   uint64
}

func (f runFlags) jobs() ([]job, error) {
	fams, err := familiesNamed(f.scenario)
	if err != nil {
		return nil, err
	}
	sh, err := parseShard(f.shard)
	if err != nil {
		return nil, err
	}
	seeds := []uint64{}
	if f.seed != "" {
		s, err := parseSeed(f.seed)
		if err != nil {
			return nil, err
		}
		seeds = append(seeds, s)
	} else {
		if f.seeds == 0 || f.seeds > 100_000_000 {
			return nil, usagef("--seeds %d: want 1 to 100,000,000", f.seeds)
		}
		seeds = sh.seeds(f.start, f.seeds)
	}
	var out []job
	for _, fam := range fams {
		for _, s := range seeds {
			out = append(out, job{fam, s})
		}
	}
	return out, nil
}

func runSweep(f runFlags, stdout, stderr io.Writer) error {
	strategy, err := strategyNamed(f.strategy, f.pctDepth)
	if err != nil {
		return err
	}
	jobs, err := f.jobs()
	if err != nil {
		return err
	}
	if err := validMutant(f.mutant); err != nil {
		return err
	}
	if f.parallel < 1 {
		return usagef("--parallel %d: want at least 1", f.parallel)
	}
	if f.jsonPath != "" {
		if err := checkWritable(f.jsonPath); err != nil {
			return err
		}
	}
	if f.junitPath != "" {
		if err := checkWritable(f.junitPath); err != nil {
			return err
		}
	}
	if f.outDir != "" {
		if err := os.MkdirAll(f.outDir, 0o755); err != nil {
			return usagef("cannot write %s: %v", f.outDir, err)
		}
		if err := checkWritable(filepath.Join(f.outDir, "x")); err != nil {
			return err
		}
	}
	opts := run.CheckOptions{ForcePorcupine: f.forcePorcupine, Mutant: f.mutant}
	began := time.Now() // wall clock for the progress line and throughput only
	// Ctrl-C (or SIGTERM) stops handing out seeds; the seeds in flight
	// finish, and the results gathered so far are reported and written.
	interrupt, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	results, traces, busy := runJobs(interrupt, jobs, strategy, opts, f.parallel, newProgress(stderr, len(jobs)))
	stop()
	interrupted := len(results) < len(jobs)
	if interrupted {
		fmt.Fprintf(stdout, "INTERRUPTED after %d of %d seeds: the results below are partial\n", len(results), len(jobs))
	}
	if f.noTiming {
		busy = nil
	}
	failed := summarize(results, f.strategy, stdout, busy)
	rerun := func(r run.Result, o run.CheckOptions) run.Replayed {
		fams, _ := familiesNamed(r.Family)
		return run.ReplaySeed(fams[0], r.Seed, strategy, o)
	}
	recheck(results, traces, rerun, opts, f, stdout)
	elapsed := time.Since(began)
	fmt.Fprintf(stderr, "%d seeds in %.1fs (%.0f seeds/s)\n", len(results), elapsed.Seconds(), float64(len(results))/elapsed.Seconds())
	if f.jsonPath != "" {
		if err := writeJSON(f.jsonPath, results, f.strategy); err != nil {
			return err
		}
	}
	if f.junitPath != "" {
		if err := writeJUnit(f.junitPath, results, f.strategy); err != nil {
			return err
		}
	}
	if failed > 0 || interrupted {
		return errChecksFailed
	}
	return nil
}

// runJobs runs the jobs on parallel workers until they are done or ctx is
// cancelled. It returns the results of the jobs that ran, in job order
// whatever the parallelism; each run is independent and deterministic, so
// the results are the same at any --parallel. traces[i] is the canonical
// trace of results[i] if it failed ("" otherwise), for recheck. busy is
// the wall time each family's seeds kept a worker busy, for the table's
// seeds per core-second (the only timing it reports).
func runJobs(ctx context.Context, jobs []job, st sim.Strategy, opts run.CheckOptions, parallel int, prog *progress) (
	results []run.Result, traces []string, busy map[string]time.Duration) {
	results, traces = make([]run.Result, len(jobs)), make([]string, len(jobs))
	took := make([]time.Duration, len(jobs))
	ran := make([]bool, len(jobs))
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < parallel; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				began := time.Now()
				results[i], traces[i] = run.RunSeedTrace(jobs[i].family, jobs[i].seed, st, opts)
				took[i] = time.Since(began)
				ran[i] = true
				prog.tick()
			}
		}()
	}
dispatch:
	for i := range jobs {
		select {
		case next <- i:
		case <-ctx.Done():
			break dispatch
		}
	}
	close(next)
	wg.Wait()
	prog.done()
	n, busy := 0, map[string]time.Duration{}
	for i := range results {
		if ran[i] {
			busy[jobs[i].family.Name] += took[i]
			results[n], traces[n] = results[i], traces[i]
			n++
		}
	}
	return results[:n], traces[:n], busy
}
