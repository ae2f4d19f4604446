package realkubelet

import (
	"flag"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/podsim/podsim/plan"
)

var (
	sweepSeeds = flag.Int("sweep", 0, "TestSweep: seeds per family (0 = skip)")
	sweepStart = flag.Uint64("sweep.start", 1, "TestSweep: first seed")
	sweepOnly  = flag.String("sweep.family", "", "TestSweep: only this family")
	sweepHold  = flag.Bool("sweep.hold", false, "TestSweep: hold worker wake-ups at gates (wakes.go)")
	sweepReal  = flag.String("sweep.real", "all", "TestSweep, TestShrinkSeed, TestReplaySeed: the real components (components.go)")
)

// toolOptions are the run options the tool tests' flags select.
func toolOptions(t *testing.T) RunOptions {
	t.Helper()
	real, err := ParseComponents(*sweepReal)
	if err != nil {
		t.Fatal(err)
	}
	return RunOptions{HoldWakes: *sweepHold, Real: real}
}

// TestSweep runs -sweep seeds of every family on the real pod workers and
// prints, per family, how many seeds found each class of deviation and
// the first seed of each (to shrink with TestShrinkSeed). It fails on any
// unexplained finding. `make real-sweep` runs it.
func TestSweep(t *testing.T) {
	if *sweepSeeds == 0 {
		t.Skip("run with -sweep N")
	}
	opts := toolOptions(t)
	var report strings.Builder
	total, failed, unexplained := 0, 0, 0
	for _, f := range plan.KubeletFamilies() {
		if *sweepOnly != "" && f.Name != *sweepOnly {
			continue
		}
		count, first := map[string]int{}, map[string]uint64{}
		famFailed := 0
		for i := range *sweepSeeds {
			seed := *sweepStart + uint64(i)
			r := Bubble(t, func() Result { return RunSeedWith(f, seed, opts) })
			total++
			if r.Failed() {
				failed++
				famFailed++
			}
			for _, c := range r.Classes() {
				if _, ok := first[c]; !ok {
					first[c] = seed
				}
				count[c]++
			}
			for _, u := range r.Unexplained() {
				unexplained++
				if unexplained <= 10 {
					t.Errorf("%s seed %d: %s", f.Name, seed, u)
				}
			}
		}
		fmt.Fprintf(&report, "%-32s %6d seeds %6d with findings:", f.Name, *sweepSeeds, famFailed)
		classes := make([]string, 0, len(count))
		for c := range count {
			classes = append(classes, c)
		}
		slices.Sort(classes)
		for _, c := range classes {
			name := c
			if name == "" {
				name = "UNEXPLAINED"
			}
			fmt.Fprintf(&report, " %s=%d (first seed %d)", name, count[c], first[c])
		}
		report.WriteString("\n")
	}
	fmt.Fprintf(&report, "total: %d seeds, %d with findings, %d unexplained findings\n", total, failed, unexplained)
	t.Log("\n" + report.String())
}
