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

// cleanSeeds runs seeds 1..n of family name in both wake-up modes and
// fails the test on anything unexplained or a trace that differs when the
// seed runs again; each run goes to reached.
func cleanSeeds(t *testing.T, name string, n uint64, reached func(Result)) {
	t.Helper()
	f, ok := plan.FamilyNamed(name)
	if !ok {
		t.Fatalf("no %s family", name)
	}
	for _, hold := range []bool{false, true} {
		for seed := uint64(1); seed <= n; seed++ {
			o := RunOptions{HoldWakes: hold}
			r := Bubble(t, func() Result { return RunSeedWith(f, seed, o) })
			if u := r.Unexplained(); len(u) > 0 {
				t.Fatalf("seed %d hold %v: unexplained %v", seed, hold, u)
			}
			if again := Bubble(t, func() Result { return RunSeedWith(f, seed, o) }); again.TraceSHA != r.TraceSHA {
				t.Fatalf("seed %d hold %v: trace %s then %s", seed, hold, r.TraceSHA[:8], again.TraceSHA[:8])
			}
			reached(r)
		}
	}
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
