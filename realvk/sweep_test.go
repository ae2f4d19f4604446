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
	total, failed, unexplained := 0, 0, 0
	began := time.Now()
	for _, f := range plan.VKFamilies() {
		if *sweepOnly != "" && f.Name != *sweepOnly {
			continue
		}
		count, first := map[string]int{}, map[string]uint64{}
		famFailed := 0
		for i := range *sweepSeeds {
			seed := *sweepStart + uint64(i)
			var r Result
			synctest.Test(t, func(t *testing.T) { r = RunSeed(f, seed) })
			total++
			if r.Failed() {
				failed++
				famFailed++
			}
			for _, c := range classesOf(r) {
				if _, ok := first[c]; !ok {
					first[c] = seed
				}
				count[c]++
			}
			for _, fd := range r.Findings {
				if *verbose {
					t.Logf("%s seed %d: %s", f.Name, seed, fd)
				}
				if fd.Class == "" {
					unexplained++
					if unexplained <= 10 {
						t.Errorf("%s seed %d: %s", f.Name, seed, fd)
					}
				}
			}
		}
		fmt.Fprintf(&report, "%-20s %6d seeds %6d with findings:", f.Name, *sweepSeeds, famFailed)
		keys := make([]string, 0, len(count))
		for c := range count {
			keys = append(keys, c)
		}
		slices.Sort(keys)
		for _, c := range keys {
			fmt.Fprintf(&report, " %s=%d (first seed %d)", c, count[c], first[c])
		}
		report.WriteString("\n")
	}
	secs := time.Since(began).Seconds()
	fmt.Fprintf(&report, "total: %d seeds, %d with findings, %d unexplained findings; %.1f s wall, %.1f seeds/s\n",
		total, failed, unexplained, secs, float64(total)/secs)
	t.Log("\n" + report.String())
}

// classesOf names each finding as CLASS/CHECK (UNEXPLAINED/CHECK for
// unexplained ones), once each.
func classesOf(r Result) []string {
	var out []string
	for _, f := range r.Findings {
		c := f.Class
		if c == "" {
			c = "UNEXPLAINED"
		}
		c += "/" + f.Check
		if !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	return out
}
