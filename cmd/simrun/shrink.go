package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/podsim/podsim/cmd/simrun/internal/outfile"
	"github.com/podsim/podsim/cmd/simrun/internal/progress"
	"github.com/podsim/podsim/regress"
	"github.com/podsim/podsim/run"
	"github.com/podsim/podsim/shrink"
	"github.com/podsim/podsim/sim"
	"github.com/spf13/cobra"
)

type shrinkFlags struct {
	scenario, seed, strategy, mutant, out string
	input                                 string
	pctDepth, maxRuns                     int
	force, faultPoints                    bool
	strategyGiven                         bool // --strategy or --pct-depth was given
}

func newShrinkCmd(stdout, stderr io.Writer) *cobra.Command {
	var f shrinkFlags
	cmd := &cobra.Command{
		Use:   "shrink",
		Short: "Minimise a failing seed and save it as a regression script",
		Long: "shrink re-runs one failing seed with its schedule and fault choices recorded, then minimises the\n" +
			"plan's actions, the schedule and the faults together while the run keeps failing the same check.\n" +
			"It prints the shrunk story and writes it as a datadriven script that `go test ./regress` re-runs\n" +
			"(default: " + regress.RegressDir + "/<scenario>-seed<S>[-<mutant>][-fp].txt, from the module root).\n" +
			"It refuses to overwrite an existing script unless --force. A run found with --fault-points is\n" +
			"shrunk with it: the script records it (a fault-points directive) and replays the same run.\n" +
			"Exit 1: the seed failed and was shrunk; 0: the seed passes, nothing to shrink; 2: bad input.",
		Example: "  simrun shrink --scenario early-kill --seed 12 --mutant B2\n" +
			"  simrun shrink --scenario swarm --seed 17 --strategy pct --out /tmp/swarm-17.txt\n" +
			"  simrun shrink --scenario update-storm --seed 3 --mutant B2 --fault-points   # a run found with the fault points armed",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			f.strategyGiven = strategyGiven(cmd)
			return runShrink(f, stdout, stderr)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.scenario, "scenario", "", "scenario family")
	fl.StringVar(&f.seed, "seed", "", "the failing seed")
	fl.StringVar(&f.strategy, "strategy", "random", "scheduling strategy: random or pct")
	fl.IntVar(&f.pctDepth, "pct-depth", defaultPCTDepth, "bug depth PCT searches for")
	fl.StringVar(&f.mutant, "mutant", "", "re-introduce this catalogued bug (simrun list)")
	fl.StringVar(&f.input, "input", "", "shrink a guided run by its input (the g2:… or g1:… token) instead of a seed; needs --out")
	fl.StringVar(&f.out, "out", "", "write the script here instead of the default path")
	fl.IntVar(&f.maxRuns, "max-runs", shrink.DefaultRuns, "bound on candidate runs")
	fl.BoolVar(&f.force, "force", false, "overwrite an existing script")
	fl.BoolVar(&f.faultPoints, "fault-points", false, faultPointsUsage+" (the script records it)")
	return cmd
}

func runShrink(f shrinkFlags, stdout, stderr io.Writer) error {
	if f.input != "" {
		return runShrinkInput(f, stdout, stderr)
	}
	if f.scenario == "" || f.seed == "" {
		return usagef("shrink needs --scenario and --seed")
	}
	fams, err := familiesNamed(f.scenario)
	if err != nil || len(fams) != 1 {
		return usagef("shrink needs one scenario, got %q", f.scenario)
	}
	seed, err := parseSeed(f.seed)
	if err != nil {
		return err
	}
	st, err := strategyNamed(f.strategy, f.pctDepth)
	if err != nil {
		return err
	}
	if err := validMutant(f.mutant); err != nil {
		return err
	}
	if f.maxRuns < 1 {
		return usagef("--max-runs %d: want at least 1", f.maxRuns)
	}
	out, err := f.scriptPath(fams[0].Name, seed)
	if err != nil {
		return err
	}
	opts := f.checkOptions()
	c, r := run.RecordSeed(fams[0], seed, st, opts)
	return shrinkCase(f, c, r, st, opts, out, shrinkCommand(f, fams[0].Name, seed), stdout, stderr)
}

// shrinkCase minimises the recorded failing run c (result r) and writes
// its script to out.
func shrinkCase(f shrinkFlags, c run.Case, r run.Result, st sim.Strategy, opts run.CheckOptions, out, command string,
	stdout, stderr io.Writer) error {
	if !r.Failed() {
		fmt.Fprintf(stdout, "%s\nthe run passes every check: nothing to shrink\n", r)
		return nil
	}
	fmt.Fprintf(stdout, "%s\n", r)
	prog := progress.New(stderr, uint64(f.maxRuns))
	s, err := shrink.Shrink(c, st, opts, shrink.Options{MaxRuns: f.maxRuns,
		Progress: func(p shrink.Progress) { prog.Set(p.Runs, "runs, best: "+p.Best.String()) }})
	prog.Done()
	if errors.Is(err, shrink.ErrNothingToShrink) {
		// RecordSeed failed but its recorded replay passes: the run is not
		// a function of its choices.
		fmt.Fprintf(stdout, "NONDETERMINISM %s: the recorded choices replay to a passing run\n", command)
		return errChecksFailed
	}
	script := regress.RenderScript(regress.Script{Command: command,
		Notes: shrinkNotes(s), Strategy: st, Case: s.Case, Mutant: f.mutant, FaultPoints: opts.FaultPoints}, run.CheckOptions{})
	if err := outfile.WriteAtomically(out, []byte(script)); err != nil {
		return err
	}
	reportShrunk(stdout, s, out, f.maxRuns)
	return errChecksFailed
}

// scriptPath is where the script goes: --out, or the regression directory
// (from the module root). It must be writable and, without --force, new.
func (f shrinkFlags) scriptPath(family string, seed uint64) (string, error) {
	out := f.out
	if out == "" {
		out = filepath.Join(regress.RegressDir, regress.ScriptName(family, seed, f.mutant))
		if f.faultPoints { // another run than the seed's unarmed one: another name
			out = strings.TrimSuffix(out, ".txt") + "-fp.txt"
		}
		if err := outfile.CheckFile("script", out); err != nil {
			return "", usagef("%v (run from the module root, or pass --out FILE)", err)
		}
	} else if err := outfile.CheckFile("--out", out); err != nil {
		return "", err
	}
	if _, err := os.Stat(out); err == nil && !f.force {
		return "", usagef("%s exists: pass --force to overwrite it", out)
	}
	return out, nil
}

// reportShrunk prints the outcome of a shrink: sizes, the story, the script
// and the command that re-runs it (TestRegressionScripts runs the scripts
// of the regression directory: one written elsewhere is copied there).
func reportShrunk(w io.Writer, s shrink.Shrunk, script string, maxRuns int) {
	name := strings.TrimSuffix(filepath.Base(script), ".txt")
	rerun := fmt.Sprintf("go test ./regress -run 'TestRegressionScripts/%s'", name)
	if abs(filepath.Dir(script)) != abs(regress.RegressDir) {
		rerun = fmt.Sprintf("cp %s %s/ && %s", script, regress.RegressDir, rerun)
	}
	fmt.Fprintf(w, "shrunk from %s\n       to %s in %d runs, still failing %s\n%s\nscript: %s\nre-run: %s\n",
		s.Original.Size(), s.Case.Size(), s.Runs, s.Target, run.Story(s.Case.Plan, s.Result), script, rerun)
	if s.Exhausted {
		fmt.Fprintf(w, "the run budget (--max-runs %d) ran out: a larger budget may shrink further\n", maxRuns)
	}
}

// shrinkCommand is the command that makes the script again, for its header.
func shrinkCommand(f shrinkFlags, family string, seed uint64) string {
	cmd := fmt.Sprintf("simrun shrink --scenario %s --seed %d --strategy %s", family, seed, f.strategy)
	if f.strategy == "pct" {
		cmd += fmt.Sprintf(" --pct-depth %d", f.pctDepth)
	}
	return cmd + f.commandTail()
}

// commandTail is the flags after the run's own in a shrink command:
// --mutant, --max-runs, --fault-points, when given.
func (f shrinkFlags) commandTail() string {
	tail := mutantArg(f.mutant)
	if f.maxRuns != shrink.DefaultRuns {
		tail += fmt.Sprintf(" --max-runs %d", f.maxRuns)
	}
	return tail + faultPointsArg(f.faultPoints)
}

// checkOptions are the options the seed or input runs under.
func (f shrinkFlags) checkOptions() run.CheckOptions {
	return run.CheckOptions{Mutant: f.mutant, FaultPoints: f.faultPoints}
}

func shrinkNotes(s shrink.Shrunk) []string {
	return []string{fmt.Sprintf("Keeps %s; shrunk from %s in %d runs.", s.Target, s.Original.Size(), s.Runs)}
}

// abs is path made absolute ("" unchanged when that fails).
func abs(path string) string {
	a, err := filepath.Abs(path)
	if err != nil {
		return path
	}
	return a
}
