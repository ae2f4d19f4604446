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
)

// TestSweep runs -sweep seeds of every VK family on the real controller
// and prints, per family, how many seeds found each class of finding and
// the first seed of each (to shrink with TestShrinkSeed), and the seeds
// per second. It fails on any unexplained finding. `make realvk-sweep`
// runs it.
func TestSweep(t *testing.T) {
	if *sweepSeeds == 0 {
		t.Skip("run with -sweep N")
	}
	var report strings.Builder
	began := time.Now()
	tot := realdriver.Sweep(t, &report, plan.VKFamilies(), *sweepOnly, 20, *sweepSeeds, *sweepStart,
		func(f plan.Family, seed uint64) realdriver.SeedVerdict {
			var r Result
			synctest.Test(t, func(t *testing.T) { r = RunSeed(f, seed) })
			if *verbose {
				for _, fd := range r.Findings {
					t.Logf("%s seed %d: %s", f.Name, seed, fd)
				}
			}
			return realdriver.SeedVerdict{Failed: r.Failed(), Classes: classesOf(r), Unexplained: realdriver.Stringers(r.Unexplained())}
		})
	secs := time.Since(began).Seconds()
	fmt.Fprintf(&report, "total: %d seeds, %d with findings, %d unexplained findings; %.1f s wall, %.1f seeds/s\n",
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
