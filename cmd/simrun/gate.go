package main

import (
	"fmt"
	"io"
	"runtime"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/podsim/podsim/gate"
	"github.com/podsim/podsim/plan"
	"github.com/spf13/cobra"
)

type gateFlags struct {
	seeds, correctSeeds uint64
	startSeeds          int
	parallel            int
	mutants             []string
	noTiming            bool
	forceParallel       bool
	observableOnly      bool
	faultPoints         bool
	strategy            string
}

func newGateCmd(stdout, stderr io.Writer) *cobra.Command {
	var f gateFlags
	cmd := &cobra.Command{
		Use:   "gate",
		Short: "Re-introduce every catalogued bug and check that the oracles catch each one",
		Long: "gate runs every mutant of `simrun list` against its scenario families under the random and\n" +
			"pct strategies, from several start seeds, and the correct code on every family. It prints, per\n" +
			"mutant: caught, the first failing run, the median seeds-to-detection (runs until the first\n" +
			"failure), what fired and the failing plan's length. Exit 1 if a mutant survives its budget, the\n" +
			"correct code fails any run, or a family's declared coverage mark stays at zero over\n" +
			"--correct-seeds of at least the family's minimum (simrun list; fewer seeds: a warning).\n" +
			"Only the wall-time column depends on the machine.",
		Example: "  simrun gate\n  simrun gate --seeds 100 --start-seeds 3 --no-timing\n  simrun gate --mutant B2 --mutant G4",
		Args:    cobra.NoArgs,
		RunE:    func(*cobra.Command, []string) error { return runGate(f, stdout, stderr) },
	}
	fl := cmd.Flags()
	fl.Uint64Var(&f.seeds, "seeds", 1000, "budget per mutant and start seed, in seeds (each runs every family × strategy)")
	fl.IntVar(&f.startSeeds, "start-seeds", 5, "start seeds the median seeds-to-detection is taken over")
	fl.Uint64Var(&f.correctSeeds, "correct-seeds", 100, "seeds of every family × strategy the correct code must pass (0: skip)")
	fl.IntVar(&f.parallel, "parallel", runtime.NumCPU(), "runs at once, at most 4 × CPUs (the report is the same at any value)")
	fl.BoolVar(&f.forceParallel, "force-parallel", false, "allow --parallel above 4 × CPUs (up to 1024)")
	fl.StringArrayVar(&f.mutants, "mutant", nil, "gate only this mutant (repeatable); default every mutant")
	fl.BoolVar(&f.observableOnly, "observable-only", false, observableOnlyUsage)
	fl.BoolVar(&f.faultPoints, "fault-points", false, faultPointsUsage+" (the mutants' runs and the correct code's)")
	fl.StringVar(&f.strategy, "strategy", "random+pct", "random+pct (each seed: a random walk and PCT depth 3) or portfolio (each seed's two runs cycle through random, PCT depths 2, 3 and 5, and the guided loop: docs/guided.md)")
	fl.BoolVar(&f.noTiming, "no-timing", false, "omit the wall-time column, so the output is byte-for-byte reproducible")
	return cmd
}

func (f gateFlags) validate() error {
	switch {
	case f.seeds == 0 || f.seeds > 1_000_000:
		return usagef("--seeds %d: want 1 to 1,000,000", f.seeds)
	case f.startSeeds < 1 || f.startSeeds > 100:
		return usagef("--start-seeds %d: want 1 to 100", f.startSeeds)
	case f.correctSeeds > 1_000_000:
		return usagef("--correct-seeds %d: want 0 to 1,000,000", f.correctSeeds)
	case f.strategy != "random+pct" && f.strategy != "portfolio":
		return usagef("--strategy %q: want random+pct or portfolio", f.strategy)
	}
	if err := checkParallel(f.parallel, f.forceParallel); err != nil {
		return err
	}
	for _, name := range f.mutants {
		if err := validMutant(name); err != nil {
			return err
		}
	}
	return nil
}

func runGate(f gateFlags, stdout, stderr io.Writer) error {
	if err := f.validate(); err != nil {
		return err
	}
	began := time.Now() // wall clock for the timing column only
	opts := gate.Options{Seeds: f.seeds, StartSeeds: f.startSeeds, Parallel: f.parallel, Mutants: f.mutants,
		ObservableOnly: f.observableOnly, Portfolio: f.strategy == "portfolio", FaultPoints: f.faultPoints}
	rows, err := gate.Check(opts)
	if err != nil {
		return usageError{err.Error()}
	}
	survivors := printGateTable(stdout, rows, f)
	correct := gate.CorrectCode(f.correctSeeds, opts)
	failed, runs := correct.Failed, correct.Runs
	per := fmt.Sprintf("%d strategies", len(gate.Strategies()))
	if f.strategy == "portfolio" {
		per = "2 portfolio runs"
	}
	fmt.Fprintf(stdout, "correct code: %d runs (%d seeds × %d families × %s), %d failed\n",
		runs, f.correctSeeds, len(plan.Families()), per, len(failed))
	for i, run := range failed {
		fmt.Fprintf(stdout, "FAIL correct code %s/%s seed %d\n  reproduce: %s\n", run.Family, run.Strategy, run.Seed,
			gateReproduce(run, correct.Inputs[i], "")+faultPointsArg(f.faultPoints))
	}
	if !f.noTiming {
		fmt.Fprintf(stderr, "gate took %.1fs\n", time.Since(began).Seconds())
	}
	unreached := 0
	for _, fam := range plan.Families() {
		reached := correct.Reached[fam.Name]
		unreached += unreachedMarks(stdout, stderr, fam.Name, f.correctSeeds, func(m string) uint64 { return reached[m] })
	}
	if survivors > 0 || len(failed) > 0 || unreached > 0 {
		fmt.Fprintf(stdout, "GATE FAILED: %d mutant(s) survived, the correct code failed %d run(s), %d coverage mark(s) unreached\n",
			survivors, len(failed), unreached)
		return errChecksFailed
	}
	fmt.Fprintf(stdout, "gate passed: %d mutants caught\n", len(rows))
	return nil
}

// printGateTable prints one row per mutant and the replay command of each
// first failure; it returns how many mutants survived.
func printGateTable(stdout io.Writer, rows []gate.Row, f gateFlags) int {
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	header := "mutant\tkind\tcaught\tfirst failing run\tseeds to detection\tfired\tstory (shrunk, from)"
	if !f.noTiming {
		header += "\twall"
	}
	fmt.Fprintln(tw, header)
	survivors := 0
	for _, row := range rows {
		first, caught := row.Starts[0], "yes"
		if !row.Caught() {
			caught, survivors = "NO", survivors+1
		}
		where, fired, story := "-", "-", "-"
		if first.Caught {
			where = fmt.Sprintf("%s/%s seed %d", first.First.Family, first.First.Strategy, first.First.Seed)
			fired = strings.Join(first.Invariants[:min(len(first.Invariants), 3)], ", ")
			story = fmt.Sprintf("%d of %d actions", first.ShrunkLength, first.PlanLength)
		}
		line := fmt.Sprintf("%s\t%s\t%s\t%s\tmedian %d of %d starts (%s)\t%s\t%s", row.Mutant.Name, row.Mutant.Kind,
			caught, where, row.MedianRuns(), len(row.Starts), startRuns(row), fired, story)
		if !f.noTiming {
			line += fmt.Sprintf("\t%.2fs", row.Wall.Seconds())
		}
		fmt.Fprintln(tw, line)
	}
	tw.Flush()
	for _, row := range rows {
		if d := row.Starts[0]; d.Caught {
			fmt.Fprintf(stdout, "%s: %s\n", row.Mutant.Name,
				gateReproduce(d.First, d.Input, row.Mutant.Name)+observableArg(f.observableOnly)+faultPointsArg(f.faultPoints))
		}
	}
	return survivors
}

// startRuns lists the runs to detection from each start ("-" if none).
func startRuns(row gate.Row) string {
	parts := make([]string, len(row.Starts))
	for i, d := range row.Starts {
		parts[i] = fmt.Sprint(d.Runs)
		if !d.Caught {
			parts[i] = "-"
		}
	}
	return strings.Join(parts, ",")
}

// gateReproduce is the replay command of a gate run: by its input for a
// guided run (input), else by its seed under its strategy (pctN: PCT of
// depth N).
func gateReproduce(r gate.Run, input, mutant string) string {
	if input != "" {
		return fmt.Sprintf("go run ./cmd/simrun replay --scenario %s --input %s", r.Family, input) + mutantArg(mutant)
	}
	strategy := r.Strategy
	if d, ok := strings.CutPrefix(strategy, "pct"); ok && d != "" {
		strategy = "pct --pct-depth " + d
	}
	return reproduce(r.Family, r.Seed, strategy, mutant)
}
