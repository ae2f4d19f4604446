package main

import (
	"fmt"
	"io"
	"runtime"
	"slices"
	"time"

	"github.com/spf13/cobra"

	"github.com/podsim/podsim/cmd/simrun/internal/outfile"
	"github.com/podsim/podsim/cmd/simrun/internal/progress"
	"github.com/podsim/podsim/run"
	"github.com/podsim/podsim/sim"
)

type runFlags struct {
	scenario, strategy, seed, shard, jsonPath, outDir, junitPath string
	mutant, corpus                                               string
	seeds, start                                                 uint64
	parallel, pctDepth                                           int
	forcePorcupine, noTiming, forceParallel                      bool
	observableOnly, faultPoints, rerunCorpus                     bool
	seedsGiven                                                   bool // --seeds was given: every family runs exactly that many
}

const runLong = "run sweeps seeds of the scenario families and checks every run. Seeds are generated as the\n" +
	"sweep goes and each result is written as it completes, in seed order, so memory stays bounded\n" +
	"whatever --seeds (the reorder buffer holds at most max(64, 16 × --parallel) results, the summary\n" +
	"counts and the first 100 failures; measured: 38 MB max RSS over 60 s of --seeds 100000000 at\n" +
	"--parallel 2 and 8) and an interrupted sweep keeps its results so far.\n\n" +
	"--json writes JSON Lines: a run record (version, commit, flags, start time), one line per seed,\n" +
	"an end record (end time, interrupted, counts); `simrun merge` reads it. --junit writes JUnit XML\n" +
	"with each seed's wall time. Every output path is checked before any work. Only --json shows a\n" +
	"passing seed's trace hash and coverage tuples: without it a run does not compute them (a failing\n" +
	"seed's hash is always computed, for its report); the table is the same either way.\n\n" +
	"Ctrl-C (or SIGTERM) stops handing out seeds, lets the seeds in flight finish, prints the partial\n" +
	"summary and writes the files; a second Ctrl-C ends the files and exits at once (130).\n\n" +
	"A --shard with no seeds (K >= --seeds) prints \"0 seeds in this shard\", writes valid empty files\n" +
	"and exits 0. The summary lists the first 100 failures; the files have every one.\n\n" +
	"A sweep of the correct code also judges each family's declared coverage marks: a mark at zero in\n" +
	"at least the family's minimum seeds (simrun list) fails the sweep (UNREACHED, family and mark named);\n" +
	"in a shorter sweep it is a warning on stderr. Without --seeds a family runs 500 seeds, or its minimum\n" +
	"when larger, so the default run judges every family's marks; --seeds N runs N of every family.\n\n" +
	"Exit codes: 0 every seed passed; 1 a seed failed, a mark was unreached, or the sweep was interrupted (partial results);\n" +
	"2 bad usage or bad input, nothing run or written; 130 a second interrupt."

func newRunCmd(stdout, stderr io.Writer) *cobra.Command {
	var f runFlags
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Sweep seeds of the scenario families and check every run",
		Long:  runLong,
		Example: "  simrun run\n  simrun run --scenario swarm --seeds 10000 --start 5000\n" +
			"  simrun run --shard 0/4 --json shard0.json",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return runSweep(cmd, f, stdout, stderr) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.scenario, "scenario", "all", "scenario family, or all")
	fl.Uint64Var(&f.seeds, "seeds", defaultSeeds, defaultSeedsUsage)
	fl.Uint64Var(&f.start, "start", 0, "first seed (--start + --seeds - 1 must not pass 2^64-1)")
	fl.StringVar(&f.seed, "seed", "", "run this one seed only (not with --seeds, --start or --shard)")
	fl.StringVar(&f.strategy, "strategy", "random", "scheduling strategy: random, pct, guided (a coverage-guided corpus loop: --start is its seed, --seeds its runs per family) or portfolio (the budget split between them, docs/guided.md)")
	fl.StringVar(&f.corpus, "corpus", "", "guided only: resume each family's corpus from DIR/<scenario>.corpus and save it there at the end")
	fl.BoolVar(&f.rerunCorpus, "rerun-corpus", false, "with --corpus: first run again every input the corpus keeps, those that reached its rarest states first (every 8th run one that came closest to an oracle's violation), then go on guided (--seeds counts them); for a corpus grown on other code, e.g. the last commit's")
	fl.IntVar(&f.pctDepth, "pct-depth", defaultPCTDepth, "bug depth PCT searches for, 1 to 2000 (--strategy pct only)")
	fl.IntVar(&f.parallel, "parallel", runtime.NumCPU(), "seeds run at once, at most 4 × CPUs (results are the same at any value)")
	fl.BoolVar(&f.forceParallel, "force-parallel", false, "allow --parallel above 4 × CPUs (up to 1024)")
	fl.StringVar(&f.shard, "shard", "", "K/N: run the K-th of N disjoint slices of the seeds (K = 0..N-1)")
	fl.StringVar(&f.jsonPath, "json", "", "write per-seed results as JSON Lines to this file, as they complete (- for stdout; the summary then goes to stderr)")
	fl.StringVar(&f.junitPath, "junit", "", "write per-seed results as JUnit XML to this file (one suite per family)")
	fl.StringVar(&f.outDir, "out", "", "write each failing seed's artifacts (trace, timeline, verdict, porcupine HTML) under DIR/<scenario>/seed-<n>/")
	fl.BoolVar(&f.forcePorcupine, "force-porcupine", false, "run porcupine's search on every history")
	fl.StringVar(&f.mutant, "mutant", "", "re-introduce this catalogued bug (simrun list); a single --scenario must be one of its families")
	fl.BoolVar(&f.observableOnly, "observable-only", false, observableOnlyUsage)
	fl.BoolVar(&f.faultPoints, "fault-points", false, faultPointsUsage)
	fl.BoolVar(&f.noTiming, "no-timing", false, "leave the seeds/s column out of the table (stdout then depends on the results alone)")
	return cmd
}

// validate checks every flag and output path, before any work, and
// returns the strategy and the plan.
func (f runFlags) validate(cmd *cobra.Command) (sim.Strategy, sweepPlan, error) {
	changed := cmd.Flags().Changed
	f.seedsGiven = changed("seeds")
	if f.seed != "" {
		for _, other := range []string{"seeds", "start", "shard"} {
			if changed(other) {
				return nil, sweepPlan{}, usagef("--seed runs one seed: it excludes --%s", other)
			}
		}
	}
	if changed("pct-depth") && f.strategy != "pct" {
		return nil, sweepPlan{}, usagef("--pct-depth applies to --strategy pct only")
	}
	var strategy sim.Strategy // the portfolio's parts have their own (portfolioSweep)
	if f.strategy != "portfolio" {
		var err error
		if strategy, err = strategyNamed(f.strategy, f.pctDepth); err != nil {
			return nil, sweepPlan{}, err
		}
	}
	if err := f.checkGuidedFlags(changed); err != nil {
		return nil, sweepPlan{}, err
	}
	plan, err := f.plan()
	if err != nil {
		return nil, sweepPlan{}, err
	}
	if err := validMutant(f.mutant); err != nil {
		return nil, sweepPlan{}, err
	}
	if err := mutantApplies(f.mutant, f.scenario); err != nil {
		return nil, sweepPlan{}, err
	}
	if err := checkParallel(f.parallel, f.forceParallel); err != nil {
		return nil, sweepPlan{}, err
	}
	return strategy, plan, f.checkOutputs()
}

// plan resolves --scenario, --seed or --start/--seeds, and --shard.
func (f runFlags) plan() (sweepPlan, error) {
	fams, err := familiesNamed(f.scenario)
	if err != nil {
		return sweepPlan{}, err
	}
	if f.seed != "" {
		s, err := parseSeed(f.seed)
		return newSweepPlan(fams, shard{0, 1}, s, 1), err
	}
	sh, err := parseShard(f.shard)
	if err != nil {
		return sweepPlan{}, err
	}
	if err := checkSeedRange(f.start, f.seeds); err != nil {
		return sweepPlan{}, err
	}
	if !f.seedsGiven && f.strategy != "portfolio" { // the portfolio splits one count per family
		counts := defaultCounts(fams)
		if err := checkSeedRange(f.start, slices.Max(counts)); err != nil {
			return sweepPlan{}, err
		}
		return newSweepPlanOf(fams, sh, f.start, counts), nil
	}
	return newSweepPlan(fams, sh, f.start, f.seeds), nil
}

func (f runFlags) checkOutputs() error {
	for _, o := range []struct{ flag, path string }{{"--json", f.jsonPath}, {"--junit", f.junitPath}} {
		if o.path != "" && !(o.flag == "--json" && o.path == "-") {
			if err := outfile.CheckFile(o.flag, o.path); err != nil {
				return err
			}
		}
	}
	if f.jsonPath != "" && f.jsonPath == f.junitPath {
		return usagef("--json and --junit name the same file %s", f.jsonPath)
	}
	if f.outDir != "" {
		return outfile.CheckDir("--out", f.outDir)
	}
	return nil
}

func runSweep(cmd *cobra.Command, f runFlags, stdout, stderr io.Writer) error {
	in := newInterrupts(stderr) // before any work: Ctrl-C at any moment keeps the results so far
	defer in.done()
	strategy, plan, err := f.validate(cmd)
	if err != nil {
		return err
	}
	if f.outDir != "" {
		if err := outfile.MakeDir(f.outDir); err != nil {
			return err
		}
	}
	results := stdout
	if f.jsonPath == "-" { // stdout is the results: the summary goes to stderr
		stdout = stderr
	}
	total := plan.total()
	if total == 0 {
		fmt.Fprintf(stdout, "0 seeds in this shard: shard %s of --seeds %d has none\n", f.shard, f.seeds)
	}
	repro := strategyArg(f.strategy, f.pctDepth) // the strategy in reproduce commands
	out, err := in.openSink(f.jsonPath, f.junitPath, f.strategy, repro, results, runMeta("run", osArgs(), cmd.Flags()), total)
	if err != nil {
		return err
	}
	began := time.Now() // wall clock for the progress line and throughput only
	sum := &summary{strategy: repro}
	prog := progress.New(stderr, total)
	collect := func(o outcome) {
		if !out.add(o.res, o.took) {
			in.cancel() // a file cannot be written: stop, and report it
		}
		sum.add(o)
		prog.Tick()
	}
	var ran uint64
	var gerr error
	switch f.strategy {
	case "guided":
		ran, gerr = guidedSweep(in.ctx, plan, f, collect)
	case "portfolio":
		ran, gerr = portfolioSweep(in.ctx, plan, f, collect)
	default:
		ran = sweep(in.ctx, plan, f.parallel, f.worker(strategy), collect)
	}
	prog.Done()
	interrupted := ran < total
	werr := out.finish(interrupted)
	if interrupted {
		fmt.Fprintf(stdout, "INTERRUPTED after %d of %d seeds: the results below are partial\n", ran, total)
	}
	sum.print(stdout, !f.noTiming)
	unreached := 0
	if f.mutant == "" && !interrupted { // a mutant may make a situation unreachable
		unreached = sum.unreached(stdout, stderr)
	}
	elapsed := time.Since(began)
	fmt.Fprintf(stderr, "%d seeds in %.1fs (%.0f seeds/s)\n", ran, elapsed.Seconds(), float64(ran)/elapsed.Seconds())
	switch {
	case werr != nil:
		return werr
	case gerr != nil:
		return gerr
	case sum.failed > 0 || interrupted || unreached > 0:
		return errChecksFailed
	}
	return nil
}

// checkOptions are the checks of every run of the sweep. Without --json
// no output shows a passing seed's trace hash or coverage tuples (the
// table counts verdicts and marks, --junit and the recheck read failing
// seeds, which keep their hash, and --out's artifacts come from a replay),
// so the runs are Lean. A guided loop's corpus still gets its tuples
// (guided.Loop asks for near misses, which run the tracker).
func (f runFlags) checkOptions() run.CheckOptions {
	return run.CheckOptions{ForcePorcupine: f.forcePorcupine, Mutant: f.mutant, ObservableOnly: f.observableOnly,
		FaultPoints: f.faultPoints, Lean: f.jsonPath == ""}
}

// worker is what each sweep worker does with a job: run the seed and, if
// it fails, recheck it (and write its artifacts with --out).
func (f runFlags) worker(strategy sim.Strategy) func(*run.Lane, job) outcome {
	opts := f.checkOptions()
	rerun := func(r run.Result, o run.CheckOptions) run.Replayed {
		fams, _ := familiesNamed(r.Family)
		return run.ReplaySeed(fams[0], r.Seed, strategy, o)
	}
	return func(l *run.Lane, j job) outcome {
		began := time.Now()
		r, trace := l.RunSeedTrace(j.family, j.seed, strategy, opts)
		o := outcome{res: r, took: time.Since(began)}
		if r.Failed() {
			o.notes = recheck(r, trace, rerun, opts, f)
		}
		return o
	}
}
