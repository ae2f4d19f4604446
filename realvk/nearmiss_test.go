package realvk

import (
	"slices"
	"testing"
	"testing/synctest"

	"github.com/podsim/podsim/plan"
)

// TestNearMissesOnRealVK: RunPlanNearMisses records the VK oracle's near
// misses (package oracle/nearmiss) in the run's coverage, sorted, the same
// for the same seed; RunPlan records none, and nothing else of the run
// changes (trace, tuples, findings). Across the VK families' first seeds
// some run meets one.
func TestNearMissesOnRealVK(t *testing.T) {
	seen := map[string]bool{}
	for _, f := range plan.VKFamilies() {
		for seed := uint64(0); seed < 3; seed++ {
			run := func(runPlan func(string, uint64, plan.Plan, plan.Streams) Result) (r Result) {
				st := plan.SeedStreams(seed) // the streams are consumed by a run: fresh ones each time
				synctest.Test(t, func(*testing.T) { r = runPlan(f.Name, seed, f.Generate(st.Plan), st) })
				return r
			}
			a, b, off := run(RunPlanNearMisses), run(RunPlanNearMisses), run(RunPlan)
			if !slices.Equal(a.Coverage.Near, b.Coverage.Near) || !slices.IsSorted(a.Coverage.Near) {
				t.Fatalf("%s seed %d: near misses %q, then %q (want the same, sorted)", f.Name, seed, a.Coverage.Near, b.Coverage.Near)
			}
			if len(off.Coverage.Near) != 0 || off.TraceSHA != a.TraceSHA || !slices.Equal(off.Coverage.Tuples, a.Coverage.Tuples) ||
				off.Failed() != a.Failed() || len(off.Findings) != len(a.Findings) {
				t.Fatalf("%s seed %d: without near misses %q, trace %s, %d findings; with them trace %s, %d findings",
					f.Name, seed, off.Coverage.Near, off.TraceSHA, len(off.Findings), a.TraceSHA, len(a.Findings))
			}
			for _, k := range a.Coverage.Near {
				seen[k] = true
			}
		}
	}
	if len(seen) == 0 {
		t.Fatal("no run met a near miss")
	}
	t.Logf("near misses met: %v", seen)
}
