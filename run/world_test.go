package run

import (
	"testing"

	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/sim"
)

func TestSwarmSeedsPass(t *testing.T) {
	// 200 seeds of every family (make sweep: 500), the families' declared
	// minimum sweep: enough to reach every family's marks (their
	// situations, TestFamiliesReachTheirMarks) with every check on.
	n := sweepBudget(500, 200, 50)
	for _, f := range plan.Families() {
		for seed := uint64(0); seed < n; seed++ {
			if r := RunSeed(f, seed, sim.RandomWalk{}, CheckOptions{}); r.Failed() {
				pl := f.Generate(plan.SeedStreams(seed).Plan)
				t.Fatalf("%v\n%v", r, pl)
			}
		}
	}
}
