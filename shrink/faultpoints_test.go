package shrink

import (
	"testing"

	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/run"
	"github.com/podsim/podsim/sim"
)

// TestShrinkKeepsFaultPoints: a failing run made with the fault points
// armed and at least one on shrinks like any other (its fault plan is part
// of its fault choices): the shrunk case fails the same way under the same
// options, and replays to the same verdict.
func TestShrinkKeepsFaultPoints(t *testing.T) {
	f, _ := plan.FamilyNamed("update-storm")
	opts := run.CheckOptions{Mutant: "B2", FaultPoints: true}
	for seed := uint64(0); seed < 60; seed++ {
		c, r := run.RecordSeed(f, seed, sim.RandomWalk{}, opts)
		if !r.Failed() || len(r.FaultPoints) == 0 {
			continue
		}
		s, err := Shrink(c, sim.RandomWalk{}, opts, Options{MaxRuns: 300})
		if err != nil {
			t.Fatal(err)
		}
		again := run.ReplayCase(s.Case, sim.RandomWalk{}, opts)
		if !again.Failed() || run.FailureKeys(again.Result)[0] != s.Target || len(s.Case.Plan.Actions) > len(c.Plan.Actions) {
			t.Fatalf("seed %d (points %v): shrunk case replays failed=%v %v, want %s; %d actions from %d", seed,
				r.FaultPoints, again.Failed(), run.FailureKeys(again.Result), s.Target, len(s.Case.Plan.Actions),
				len(c.Plan.Actions))
		}
		return
	}
	t.Fatal("no failing seed of 60 with a fault point on")
}
