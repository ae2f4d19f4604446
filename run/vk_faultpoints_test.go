package run

import (
	"slices"
	"strings"
	"testing"

	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/sim"
	"github.com/podsim/podsim/vkworld"
)

// vkFaultPointSeeds is how many seeds per VK family the fault-point tests
// run.
const vkFaultPointSeeds = 60

// TestVKFaultPointsKeepCorrectCodeCorrect: with the fault points armed,
// every VK family's seeds pass on the correct code under the random walk
// and PCT, and every point fires in some run (its event is in the trace),
// so the check is not vacuous.
func TestVKFaultPointsKeepCorrectCodeCorrect(t *testing.T) {
	fired := map[string]int{}
	on := 0
	for _, f := range plan.VKFamilies() {
		for _, st := range []sim.Strategy{sim.RandomWalk{}, sim.PCT{Depth: 3, Steps: 2000}} {
			for seed := range uint64(vkFaultPointSeeds) {
				rp := ReplaySeed(f, seed, st, CheckOptions{FaultPoints: true})
				if rp.Failed() {
					t.Errorf("%s seed %d (%v) with fault points %v: %v", f.Name, seed, st, rp.FaultPoints, rp.Result)
				}
				if !rp.FaultPointsArmed {
					t.Fatalf("%s seed %d: the result does not say the points were armed", f.Name, seed)
				}
				if len(rp.FaultPoints) > 0 {
					on++
				}
				for _, p := range vkworld.FaultPoints() {
					if strings.Contains(rp.Trace, "faultpoint/"+p.String()+"/") {
						if !slices.Contains(rp.FaultPoints, p.String()) {
							t.Errorf("%s seed %d: %s fired but is not on (%v)", f.Name, seed, p, rp.FaultPoints)
						}
						fired[p.String()]++
					}
				}
			}
		}
	}
	t.Logf("runs with a point on: %d of %d; runs where each fired: %v", on, 2*vkFaultPointSeeds*len(plan.VKFamilies()), fired)
	for _, p := range vkworld.FaultPoints() {
		if fired[p.String()] == 0 {
			t.Errorf("fault point %s fired in no run", p)
		}
	}
}
