package run

import (
	"testing"

	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/sim"
)

func TestSwarmSeedsPass(t *testing.T) {
	n := uint64(500)
	if testing.Short() {
		n = 50
	}
	for _, f := range plan.Families() {
		for seed := uint64(0); seed < n; seed++ {
			if r := RunSeed(f, seed, sim.RandomWalk{}, CheckOptions{}); r.Failed() {
				pl := f.Generate(plan.SeedStreams(seed).Plan)
				t.Fatalf("%v\n%v", r, pl)
			}
		}
	}
}
