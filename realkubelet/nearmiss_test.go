package realkubelet

import (
	"slices"
	"testing"

	"github.com/podsim/podsim/plan"
)

// TestNearMissesOnRealKubelet: with RunOptions.NearMisses a run on the
// real pod workers records the oracles' near misses (package
// oracle/nearmiss) in its coverage, sorted, the same for the same seed;
// without it none, and nothing else of the run changes (trace, tuples,
// verdict). Across the kubelet families' first seeds some run meets one.
func TestNearMissesOnRealKubelet(t *testing.T) {
	seen := map[string]bool{}
	for i, f := range plan.KubeletFamilies() {
		seed := uint64(1 + i)
		o := RunOptions{HoldWakes: i%2 == 1, NearMisses: true}
		a := Bubble(t, func() Result { return RunSeedWith(f, seed, o) })
		b := Bubble(t, func() Result { return RunSeedWith(f, seed, o) })
		o.NearMisses = false
		off := Bubble(t, func() Result { return RunSeedWith(f, seed, o) })
		if !slices.Equal(a.Coverage.Near, b.Coverage.Near) || !slices.IsSorted(a.Coverage.Near) {
			t.Fatalf("%s seed %d: near misses %q, then %q (want the same, sorted)", f.Name, seed, a.Coverage.Near, b.Coverage.Near)
		}
		if len(off.Coverage.Near) != 0 || off.TraceSHA != a.TraceSHA || !slices.Equal(off.Coverage.Tuples, a.Coverage.Tuples) ||
			!slices.Equal(off.Classes(), a.Classes()) || off.Failed() != a.Failed() {
			t.Fatalf("%s seed %d: without near misses %q, trace %s, classes %v; with them trace %s, classes %v",
				f.Name, seed, off.Coverage.Near, off.TraceSHA, off.Classes(), a.TraceSHA, a.Classes())
		}
		for _, k := range a.Coverage.Near {
			seen[k] = true
		}
	}
	if len(seen) == 0 {
		t.Fatal("no run met a near miss")
	}
	t.Logf("near misses met: %v", seen)
}
