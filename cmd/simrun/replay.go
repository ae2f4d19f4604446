package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/podsim/podsim/cmd/simrun/internal/outfile"
	"github.com/podsim/podsim/cmd/simrun/internal/tracetext"
	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/run"
	"github.com/spf13/cobra"
)

type replayFlags struct {
	scenario, seed, strategy, tracePath, timelinePath, outDir, expectPath, mutant string
	input                                                                         string
	depth                                                                         int
	reportPath                                                                    string
	observableOnly, faultPoints                                                   bool
	strategyGiven                                                                 bool // --strategy or --pct-depth was given
}

func newReplayCmd(stdout io.Writer) *cobra.Command {
	var f replayFlags
	cmd := &cobra.Command{
		Use:   "replay",
		Short: "Re-run one seed and print its verdict and trace hash",
		Long: "replay re-runs one seed of a family and prints the verdict and the SHA-256 of its canonical\n" +
			"trace: the same seed gives the same hash on any machine, at any GOMAXPROCS, with or without -race.\n" +
			"--expect compares the run with a trace saved by --trace (sha256sum of that file is the hash\n" +
			"printed) and names the first record at which they part. --timeline and --out's timeline.json\n" +
			"are on virtual time (ts in microseconds, the record number as an argument), one track per\n" +
			"simulated goroutine.\n\n" +
			"Exit codes: 0 the seed passes (and matches --expect's trace); 1 the seed fails its checks\n" +
			"(with --expect: the trace matches, so it fails as recorded); 2 bad usage or bad input;\n" +
			"3 the replay diverged from --expect's trace (whatever its verdict).",
		Example: "  simrun replay --scenario swarm --seed 17 --trace trace.txt --timeline timeline.json\n" +
			"  simrun replay --scenario swarm --seed 17 --expect trace.txt   # same run as the saved trace?\n" +
			"  simrun replay --scenario update-storm --seed 8 --mutant B2 --report report.html   # open it in a browser",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			f.strategyGiven = strategyGiven(cmd)
			return runReplay(f, stdout)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.scenario, "scenario", "", "scenario family")
	fl.StringVar(&f.seed, "seed", "", "seed to replay")
	fl.StringVar(&f.strategy, "strategy", "random", "scheduling strategy: random or pct")
	fl.StringVar(&f.input, "input", "", "replay a guided run by its input (the g2:… token run --strategy guided prints; g1:… tokens of older runs too) instead of a seed")
	fl.IntVar(&f.depth, "pct-depth", defaultPCTDepth, "bug depth PCT searches for")
	fl.StringVar(&f.tracePath, "trace", "", "write the canonical trace to this file")
	fl.StringVar(&f.timelinePath, "timeline", "", "write the run as Chrome trace-event JSON to this file (open it in Perfetto)")
	fl.StringVar(&f.mutant, "mutant", "", "re-introduce this catalogued bug (simrun list)")
	fl.BoolVar(&f.observableOnly, "observable-only", false, observableOnlyUsage)
	fl.BoolVar(&f.faultPoints, "fault-points", false, faultPointsUsage)
	fl.StringVar(&f.outDir, "out", "", "write the seed's verdict, trace and timeline here, and if it fails the oracles' artifacts (porcupine HTML, witness) and report.html")
	fl.StringVar(&f.reportPath, "report", "", "write the run's self-contained HTML report (verdict, story, timeline, porcupine) to this file (a seed's, or --input's)")
	fl.StringVar(&f.expectPath, "expect", "", "compare the replay with this saved trace (replay --trace) and report the first divergent step")
	return cmd
}

func runReplay(f replayFlags, stdout io.Writer) error {
	if f.input != "" {
		return runReplayInput(f, stdout)
	}
	if f.scenario == "" || f.seed == "" {
		return usagef("replay needs --scenario and --seed (or --input)")
	}
	fams, err := familiesNamed(f.scenario)
	if err != nil || len(fams) != 1 {
		return usagef("replay needs one scenario, got %q", f.scenario)
	}
	s, err := parseSeed(f.seed)
	if err != nil {
		return err
	}
	if f.strategy == "guided" {
		return usagef("--strategy guided replays a run by its --input, not by --seed")
	}
	st, err := strategyNamed(f.strategy, f.depth)
	if err != nil {
		return err
	}
	expected, err := f.prepare()
	if err != nil {
		return err
	}
	rr := seedReport(fams[0], s, st, strategyArg(f.strategy, f.depth), f.checkOptions())
	o := rr.Opts
	o.Reproduce, o.ArtifactDir = rr.Reproduce, f.outDir
	rp := run.ReplaySeed(fams[0], s, st, o)
	if err := f.printReplay(rp, expected, o.Reproduce, stdout); err != nil {
		return err
	}
	if err := replayReport(f, rr, rp.Failed(), stdout); err != nil {
		return err
	}
	return f.replayVerdict(rp, expected, stdout)
}

// checkOptions are the replay's run options (its mutant, observable-only
// and fault points).
func (f replayFlags) checkOptions() run.CheckOptions {
	return run.CheckOptions{Mutant: f.mutant, ObservableOnly: f.observableOnly, FaultPoints: f.faultPoints}
}

// prepare checks --mutant and the output paths and reads --expect's trace,
// before the run.
func (f replayFlags) prepare() ([]string, error) {
	if err := validMutant(f.mutant); err != nil {
		return nil, err
	}
	if err := f.checkOutputs(); err != nil {
		return nil, err
	}
	return readExpectedTrace(f.expectPath)
}

// oneFamily resolves the --scenario of a command that runs one family.
func oneFamily(command, scenario string) (plan.Family, error) {
	fams, err := familiesNamed(scenario)
	if err != nil || len(fams) != 1 {
		return plan.Family{}, usagef("%s needs one scenario, got %q", command, scenario)
	}
	return fams[0], nil
}

// printReplay writes the replay's files and prints its verdict and hash.
func (f replayFlags) printReplay(rp run.Replayed, expected []string, reproduceCmd string, stdout io.Writer) error {
	r := rp.Result
	got := tracetext.Lines(rp.Trace)
	d, _ := firstDivergence(expected, got)
	if expected != nil && d.want == "" && d.line == len(expected)+1 {
		return usagef("%s: truncated trace file: it matches the replay's first %d records of %d, then ends",
			f.expectPath, len(expected), len(got))
	}
	if err := f.writeFiles(rp, reproduceCmd); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s\ntrace sha256 %s (%d steps, %v virtual)\n", r, r.TraceSHA, r.Steps, r.Elapsed)
	for _, v := range r.Violations {
		fmt.Fprintf(stdout, "  %s\n", v)
	}
	return nil
}

// replayVerdict compares the replay with --expect's trace and returns the
// exit: diverged, failed or passed.
func (f replayFlags) replayVerdict(rp run.Replayed, expected []string, stdout io.Writer) error {
	r := rp.Result
	d, diverged := firstDivergence(expected, tracetext.Lines(rp.Trace))
	switch {
	case expected == nil:
	case diverged:
		fmt.Fprintf(stdout, "DIVERGED from %s: %s\n", f.expectPath, d)
		return errDiverged
	case r.Failed():
		fmt.Fprintf(stdout, "trace matches %s (%d records): the seed fails, as recorded\n", f.expectPath, len(expected))
	default:
		fmt.Fprintf(stdout, "trace matches %s (%d records)\n", f.expectPath, len(expected))
	}
	if r.Failed() {
		return errChecksFailed
	}
	return nil
}

// checkOutputs checks replay's output paths before the run.
func (f replayFlags) checkOutputs() error {
	for _, o := range []struct{ flag, path string }{{"--trace", f.tracePath}, {"--timeline", f.timelinePath}} {
		if o.path != "" {
			if err := outfile.CheckFile(o.flag, o.path); err != nil {
				return err
			}
		}
	}
	if f.outDir != "" {
		if err := outfile.CheckDir("--out", f.outDir); err != nil {
			return err
		}
	}
	return checkReportPath(f.reportPath)
}

// writeFiles writes --trace, --timeline and --out's files.
func (f replayFlags) writeFiles(rp run.Replayed, reproduceCmd string) error {
	if f.tracePath != "" {
		if err := outfile.Write(f.tracePath, []byte(rp.Trace)); err != nil {
			return err
		}
	}
	if f.timelinePath != "" {
		if err := outfile.Write(f.timelinePath, tracetext.Chrome(rp.Trace)); err != nil {
			return err
		}
	}
	if f.outDir != "" {
		if err := writeSeedArtifacts(f.outDir, rp, reproduceCmd); err != nil {
			return usagef("cannot write %s: %v", f.outDir, err)
		}
	}
	return nil
}

// readExpectedTrace reads --expect's file; nil when there is none.
func readExpectedTrace(path string) ([]string, error) {
	if path == "" {
		return nil, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, usagef("cannot read %s: %v", path, err)
	}
	lines, err := tracetext.Parse(data)
	if err != nil {
		return nil, usagef("%s: %v", path, err)
	}
	return lines, nil
}

func newListCmd(stdout io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "List scenario families, strategies and mutants",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			fmt.Fprintln(stdout, "families (name, then the coverage marks a sweep of at least the minimum seeds must reach):")
			for _, f := range plan.Families() {
				fmt.Fprintf(stdout, "  %s\n      marks (minimum %d seeds): %s\n", f.Name, f.MinimumSeeds(), strings.Join(f.Marks, ", "))
			}
			fmt.Fprintln(stdout, "strategies:\n  random\n  pct (--pct-depth d)\n  guided (run only: a coverage-guided corpus loop, --corpus DIR; replay --input)")
			printMutants(stdout)
			return nil
		},
	}
}
