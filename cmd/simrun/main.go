// Command simrun runs podsim's scenario families under the deterministic
// scheduler: it sweeps seeds in CI, replays one seed byte for byte, shrinks
// a failing seed into a regression script, and lists what it can run.
//
//	simrun                                   = simrun run (every family, default budget)
//	simrun run --scenario swarm --seeds 5000 --parallel 2
//	simrun replay --scenario swarm --seed 17 --trace trace.txt
//	simrun replay --scenario swarm --seed 17 --expect trace.txt
//	simrun shrink --scenario swarm --seed 17 [--mutant B2]
//	simrun list
//	simrun merge shard0.json shard1.json --json all.json
//	cat shard*.json | simrun merge -
//	simrun completion bash|zsh|fish|powershell
//	simrun --version
//
// Exit codes: 0 every check passed, 1 a check failed (or a sweep was
// interrupted: its results are partial), 2 bad usage or bad input (one
// clear line on stderr, nothing else written), 3 replay --expect: the run
// diverged from the saved trace, 130 a second interrupt.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/podsim/podsim/run"
)

// usageError is bad usage or bad input: exit code 2.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return usageError{fmt.Sprintf(format, args...)} }

// errChecksFailed is a run in which some check failed: exit code 1 (the
// failures were already printed).
var errChecksFailed = errors.New("checks failed")

// errDiverged is replay --expect's run parting from the saved trace: exit
// code 3, distinct from a seed that fails as recorded (1).
var errDiverged = errors.New("diverged")

func main() {
	tuneGC()
	os.Exit(execute(os.Args[1:], os.Stdout, os.Stderr))
}

// simrunGCPercent is the collector's target simrun runs with unless GOGC
// says otherwise. A sweep keeps little alive (a few MB: the seeds in
// flight, the reorder buffer, the summary) and allocates fast, so at Go's
// default of 100 it collects every few MB and the collector, with the
// preemption it causes, takes a quarter of the CPU. Measured 2026-11-26 on
// the 2-core machine, idle, `simrun run --seeds 2000` (42,000 seeds)
// alternated: 28-31 CPU-s and 25 MB max RSS at 100; 20-23 CPU-s and 36 MB
// at 400 (docs/performance.md).
const simrunGCPercent = run.SweepGCPercent

// tuneGC sets simrunGCPercent when GOGC is unset. The collector's pace
// changes no output: runs are deterministic at any GOGC.
func tuneGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(simrunGCPercent)
	}
}

// execute runs simrun with args and returns the exit code.
func execute(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		args = []string{"run"}
	}
	root := newRoot(stdout, stderr)
	completeFlagValues(root)
	root.SetArgs(args)
	err := root.Execute()
	switch {
	case err == nil:
		return 0
	case errors.Is(err, errChecksFailed):
		return 1
	case errors.Is(err, errDiverged):
		return 3
	}
	fmt.Fprintf(stderr, "simrun: %v\n", err)
	return 2
}

func newRoot(stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:   "simrun",
		Short: "Deterministic race testing of the kubelet's pod workers",
		Long: "simrun runs podsim's scenario families against the pod workers under a seeded scheduler.\n" +
			"Every run is a pure function of (scenario, seed, options): a failing seed replays byte for byte.\n\n" +
			"Exit codes: 0 every check passed; 1 a check failed, or a sweep was interrupted (partial results);\n" +
			"2 bad usage or bad input (one line on stderr, nothing written); 3 replay --expect diverged;\n" +
			"130 a second interrupt (the output files are still whole).",
		Version:       versionString(),
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetVersionTemplate("simrun {{.Version}}\n")
	root.AddCommand(newShrinkCmd(stdout, stderr))
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err.Error()} })
	root.AddCommand(newRunCmd(stdout, stderr), newReplayCmd(stdout), newListCmd(stdout), newMergeCmd(stdout),
		newGateCmd(stdout, stderr))
	return root
}

// osArgs is the command line after the program name, for run records.
func osArgs() []string { return append([]string{}, os.Args[1:]...) }
