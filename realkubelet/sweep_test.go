package realkubelet

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/realdriver"
	"github.com/podsim/podsim/realkubelet/components"
	"github.com/podsim/podsim/realkubelet/shutdown"
)

var (
	sweepSeeds = flag.Int("sweep", 0, "TestSweep: seeds per family (0 = skip)")
	sweepStart = flag.Uint64("sweep.start", 1, "TestSweep: first seed")
	sweepOnly  = flag.String("sweep.family", "", "TestSweep: only this family")
	sweepHold  = flag.Bool("sweep.hold", false, "TestSweep: hold worker wake-ups at gates (wakes.go)")
	sweepReal  = flag.String("sweep.real", "all", "TestSweep, TestShrinkSeed, TestReplaySeed: the real components (package components)")
	sweepStrat = flag.String("sweep.strategy", "random", "TestSweep: random (seeds -sweep.start on) or guided (the corpus loop, "+
		"-sweep runs per family, loop seed -sweep.start)")
	sweepCorpus = flag.String("sweep.corpus", "", "TestSweep -sweep.strategy guided: load and save the corpora under this directory")
	sweepRerun  = flag.Bool("sweep.rerun", false, "TestSweep -sweep.strategy guided -sweep.corpus: run every kept entry again first, the rarest keys' owners first (as simrun --rerun-corpus), then the loop's own runs; -sweep counts both")
	sweepLogind = flag.Bool("sweep.logind", false, "TestSweep, TestShrinkSeed, TestReplaySeed, TestMutantSweep, TestGateSweep: restart logind under the node shutdown manager before every shutdown event (RunOptions.LogindRestart; a kubelet built with -tags podsim_shutdownctx)")
	sweepDelay  = flag.Bool("sweep.logind-delay", false, "the same tools: start logind's inhibit delay short of the node shutdown manager's groups (RunOptions.LogindDelay)")
	sweepName   = flag.Bool("sweep.name", false, "TestSweep: name each run on stderr before it starts (a mutant that crashes the binary dies in the last run named)")
)

// nameRun names a sweep's run on stderr before it starts, with -sweep.name:
// a panic in kubelet code ends the whole binary, and only the last name
// then says which seed (or which guided run) it was.
func nameRun(family string, label uint64) {
	if *sweepName {
		fmt.Fprintf(os.Stderr, "run %s %d\n", family, label)
	}
}

// toolOptions are the run options the tool tests' flags select.
func toolOptions(t *testing.T) RunOptions {
	t.Helper()
	real, err := components.Parse(*sweepReal)
	if err != nil {
		t.Fatal(err)
	}
	return RunOptions{HoldWakes: *sweepHold, Real: real, LogindRestart: logindFlag(t), LogindDelay: *sweepDelay}
}

// logindFlag is -sweep.logind, refused on a kubelet that cannot restart
// logind under its manager.
func logindFlag(t *testing.T) bool {
	t.Helper()
	if !*sweepLogind {
		return false
	}
	if err := shutdown.RestartSupported(); err != nil {
		t.Fatalf("-sweep.logind: %v", err)
	}
	return true
}

// TestSweep runs -sweep seeds of every family on the real pod workers and
// prints, per family, how many seeds found each class of deviation and
// the first seed of each (to shrink with TestShrinkSeed), and the state
// coverage the seeds reached. It fails on any unexplained finding. With
// -sweep.strategy guided it makes -sweep guided runs per family instead
// (guidedSweep), its corpora saved under -sweep.corpus if given. `make
// real-sweep` runs it.
func TestSweep(t *testing.T) {
	if *sweepSeeds == 0 {
		t.Skip("run with -sweep N")
	}
	opts := toolOptions(t)
	var report strings.Builder
	var tot realdriver.SweepTotals
	switch *sweepStrat {
	case "random":
		if *sweepCorpus != "" || *sweepRerun {
			t.Fatalf("-sweep.corpus and -sweep.rerun need -sweep.strategy guided")
		}
		tot = realdriver.Sweep(t, &report, plan.KubeletFamilies(), *sweepOnly, 32, *sweepSeeds, *sweepStart,
			func(f plan.Family, seed uint64) realdriver.SeedVerdict {
				nameRun(f.Name, seed)
				return verdict(Bubble(t, func() Result { return RunSeedWith(f, seed, opts) }))
			})
	case "guided":
		if *sweepRerun && *sweepCorpus == "" {
			t.Fatalf("-sweep.rerun needs -sweep.corpus (the corpora to run again)")
		}
		tot = realdriver.SweepRuns(t, &report, plan.KubeletFamilies(), *sweepOnly, 32, "runs",
			guidedSweep(t, opts, *sweepStart, *sweepSeeds, corpusDir(*sweepCorpus, opts, *sweepReal)))
	default:
		t.Fatalf("-sweep.strategy: unknown strategy %q (want random or guided)", *sweepStrat)
	}
	fmt.Fprintf(&report, "total: %d runs, %d with findings, %d unexplained findings\n", tot.Seeds, tot.Failed, tot.Unexplained)
	t.Log("\n" + report.String())
}
