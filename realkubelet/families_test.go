package realkubelet

import (
	"flag"
	"testing"
	"testing/synctest"

	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/realkubelet/script"
)

var verbose = flag.Bool("realkubelet.v", false, "print every finding")

// runSeed runs one seed of a family in its own bubble.
func runSeed(t *testing.T, f plan.Family, seed uint64) Result {
	t.Helper()
	var r Result
	synctest.Test(t, func(t *testing.T) { r = RunSeed(f, seed) })
	return r
}

// TestFamiliesOnRealKubelet runs every family for a few seeds on the real
// pod workers, with and without held wake-ups, and fails on any finding
// that is not a known upstream deviation.
func TestFamiliesOnRealKubelet(t *testing.T) {
	seeds := uint64(20)
	if testing.Short() {
		seeds = 5
	}
	for _, f := range plan.KubeletFamilies() {
		t.Run(f.Name, func(t *testing.T) {
			classes := map[string]int{}
			for seed := uint64(1); seed <= 2*seeds; seed++ {
				// The second half holds the workers' wake-ups (wakes.go).
				var r Result
				o := RunOptions{HoldWakes: seed > seeds}
				synctest.Test(t, func(t *testing.T) { r = RunSeedWith(f, seed, o) })
				for _, c := range r.Classes() {
					classes[c]++
				}
				for _, u := range r.Unexplained() {
					t.Errorf("seed %d: %s\nscript:\n%s", seed, u, script.Format(r.Moves))
				}
				if *verbose {
					for _, fd := range r.Findings {
						t.Logf("seed %d: %s", seed, fd)
					}
				}
			}
			t.Logf("%s: %d seeds, seeds per finding class: %v", f.Name, 2*seeds, classes)
		})
	}
}

// TestPorcupineAgreesWithReplay: with porcupine run on every history
// (model/check.Check, not only when the witness replay fails), the verdicts do
// not change and the two readings of the model never disagree
// (Invariant "internal").
func TestPorcupineAgreesWithReplay(t *testing.T) {
	for _, f := range plan.KubeletFamilies() {
		for seed := uint64(1); seed <= 5; seed++ {
			var plain, forced Result
			synctest.Test(t, func(t *testing.T) { plain = RunSeed(f, seed) })
			synctest.Test(t, func(t *testing.T) { forced = RunSeedWith(f, seed, RunOptions{ForcePorcupine: true}) })
			if len(plain.Findings) != len(forced.Findings) {
				t.Errorf("%s seed %d: %d findings, %d with porcupine forced", f.Name, seed, len(plain.Findings), len(forced.Findings))
			}
			for _, fd := range forced.Findings {
				if fd.Invariant == "internal" || fd.Invariant == "unknown" {
					t.Errorf("%s seed %d: %s", f.Name, seed, fd)
				}
			}
		}
	}
}
