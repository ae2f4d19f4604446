package run

import (
	"strings"
	"testing"

	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/sim"
	"github.com/podsim/podsim/world"
)

// faultPointSeeds is how many seeds per family the fault-point tests run.
const faultPointSeeds = 40

// TestFaultPointsKeepCorrectCodeCorrect: with the fault points armed, every
// family's seeds pass on the correct code, and every point fires in some
// run (its event is in the trace), so the check is not vacuous.
func TestFaultPointsKeepCorrectCodeCorrect(t *testing.T) {
	fired := map[string]int{}
	on := 0
	for _, f := range plan.Families() {
		for seed := uint64(0); seed < faultPointSeeds; seed++ {
			rp := ReplaySeed(f, seed, sim.RandomWalk{}, CheckOptions{FaultPoints: true, ObservableOnly: true})
			r, trace := rp.Result, rp.Trace
			if r.Failed() {
				t.Errorf("%s seed %d with fault points %v: %v", f.Name, seed, r.FaultPoints, r)
			}
			if len(r.FaultPoints) > 0 {
				on++
			}
			for _, p := range world.FaultPoints() {
				if strings.Contains(trace, "faultpoint/"+p.String()+"/") {
					fired[p.String()]++
				}
			}
		}
	}
	t.Logf("runs with a point on: %d; runs where each fired: %v", on, fired)
}
