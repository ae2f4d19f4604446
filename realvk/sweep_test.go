package realvk

import (
	"flag"
	"fmt"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/realdriver"
)

var (
	sweepSeeds = flag.Int("sweep", 0, "TestSweep: seeds per VK family (0 = skip)")
	sweepStart = flag.Uint64("sweep.start", 1, "TestSweep: first seed")
	sweepOnly  = flag.String("sweep.family", "", "TestSweep: only this family")
	verbose    = flag.Bool("realvk.v", false, "TestSweep: print every finding")
	sweepStrat = flag.String("sweep.strategy", "random", "TestSweep: random (seeds -sweep.start on) or guided (the corpus loop, "+
		"-sweep runs per family, loop seed -sweep.start)")
	sweepCorpus = flag.String("sweep.corpus", "", "TestSweep -sweep.strategy guided: load and save the corpora in this directory")
	sweepRerun  = flag.Bool("sweep.rerun", false, "TestSweep -sweep.strategy guided -sweep.corpus: run every kept entry again first, the rarest keys' owners first (as simrun --rerun-corpus), then the loop's own runs; -sweep counts both")
)

// TestSweep runs -sweep seeds of every VK family on the real controller
// and prints, per family, how many seeds found each class of finding and
// the first seed of each (to shrink with TestShrinkSeed), the state
// coverage the seeds reached, and the seeds per second. It fails on any
// unexplained finding. With -sweep.strategy guided it makes -sweep guided
// runs per family instead (guidedSweep), its corpora saved in
// -sweep.corpus if given. `make realvk-sweep` runs it.
func TestSweep(t *testing.T) {
	if *sweepSeeds == 0 {
		t.Skip("run with -sweep N")
	}
	var report strings.Builder
	began := time.Now()
	var tot realdriver.SweepTotals
	switch *sweepStrat {
	case "random":
		if *sweepCorpus != "" || *sweepRerun {
			t.Fatalf("-sweep.corpus and -sweep.rerun need -sweep.strategy guided")
		}
		tot = realdriver.Sweep(t, &report, plan.VKFamilies(), *sweepOnly, 20, *sweepSeeds, *sweepStart,
			func(f plan.Family, seed uint64) realdriver.SeedVerdict {
				var r Result
				synctest.Test(t, func(t *testing.T) { r = RunSeed(f, seed) })
				if *verbose {
					for _, fd := range r.Findings {
						t.Logf("%s seed %d: %s", f.Name, seed, fd)
					}
				}
				return verdict(r)
			})
	case "guided":
		if *sweepRerun && *sweepCorpus == "" {
			t.Fatalf("-sweep.rerun needs -sweep.corpus (the corpora to run again)")
		}
		tot = realdriver.SweepRuns(t, &report, plan.VKFamilies(), *sweepOnly, 20, "runs",
			guidedSweep(t, *sweepStart, *sweepSeeds, *sweepCorpus))
	default:
		t.Fatalf("-sweep.strategy: unknown strategy %q (want random or guided)", *sweepStrat)
	}
	secs := time.Since(began).Seconds()
	fmt.Fprintf(&report, "total: %d runs, %d with findings, %d unexplained findings; %.1f s wall, %.1f runs/s\n",
		tot.Seeds, tot.Failed, tot.Unexplained, secs, float64(tot.Seeds)/secs)
	t.Log("\n" + report.String())
}

// classesOf names each finding as CLASS/CHECK (UNEXPLAINED/CHECK for
// unexplained ones), once each.
func classesOf(r Result) []string {
	var out []string
	for _, f := range r.Findings {
		c := realdriver.ClassLabel(f.Class) + "/" + f.Check
		if !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	return out
}
