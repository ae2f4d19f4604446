package world

import (
	"testing"
	"time"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/sim"
)

// actionOfA is a plan action of pod a (named web, grace 30 s, 1 CPU, 1 Mi).
func actionOfA(kind plan.ActionKind, at time.Duration) plan.Action {
	return plan.Action{Kind: kind, At: at, UID: "a", Name: "web", SpecGrace: 30, Grace: -1, CPU: 1, Mem: 1}
}

// runObserved runs p on seed 1's streams and hands observe every event;
// a run that ends in an error fails t, naming the case.
func runObserved(t *testing.T, name string, p plan.Plan, observe func(history.Event)) {
	t.Helper()
	st := plan.SeedStreams(1)
	w := NewWorld(p, st.Schedule, st.Faults, sim.RandomWalk{})
	w.Observe(observe)
	if err := w.Run(); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}
