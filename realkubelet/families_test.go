package realkubelet

import (
	"flag"
	"testing"
	"testing/synctest"

	"github.com/podsim/podsim/scenarios"
)

var verbose = flag.Bool("realkubelet.v", false, "print every finding")

// runSeed runs one seed of a family in its own bubble.
func runSeed(t *testing.T, f scenarios.Family, seed uint64) Result {
	t.Helper()
	var r Result
	synctest.Test(t, func(t *testing.T) { r = RunSeed(f, seed) })
	return r
}

// TestFamiliesOnRealKubelet runs every family for a few seeds on the real
// pod workers and fails on any finding that is neither a known upstream
// deviation nor a documented model difference.
func TestFamiliesOnRealKubelet(t *testing.T) {
	seeds := uint64(20)
	if testing.Short() {
		seeds = 5
	}
	for _, f := range scenarios.Families() {
		t.Run(f.Name, func(t *testing.T) {
			classes := map[string]int{}
			for seed := uint64(1); seed <= seeds; seed++ {
				r := runSeed(t, f, seed)
				for _, c := range r.Classes() {
					classes[c]++
				}
				for _, u := range r.Unexplained() {
					t.Errorf("seed %d: %s\nscript:\n%s", seed, u, FormatScript(r.Moves))
				}
				if *verbose {
					for _, fd := range r.Findings {
						t.Logf("seed %d: %s", seed, fd)
					}
				}
			}
			t.Logf("%s: %d seeds, seeds per finding class: %v", f.Name, seeds, classes)
		})
	}
}
