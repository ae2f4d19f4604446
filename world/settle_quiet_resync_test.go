package world

import (
	"testing"

	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/sim"
)

// TestResyncsCanRepeatConditions: each world-wide condition of the rule
// switches it off on its own.
func TestResyncsCanRepeatConditions(t *testing.T) {
	for _, tt := range []struct {
		name string
		set  func(w *World)
	}{
		{"natural completion", func(w *World) { w.Runtime.Faults.TerminalRate = 1 }},
		{"errors", func(w *World) { w.Runtime.Faults.ErrorRate = 1 }},
		{"foreign syncer", func(w *World) { w.quiet.foreignSyncer = true }},
		{"mutant", func(w *World) { w.workersMutant = "x" }},
		{"kubelet bug", func(w *World) { w.Bugs.B4ShutdownKeepsPhase = true }},
		{"B16 fault mode", func(w *World) { w.Runtime.Faults.UncancellablePull = B16PullTime }},
		{"kubelet", func(w *World) { w.kube = newKubelet(&plan.Node{}) }},
	} {
		st := plan.SeedStreams(7)
		w := NewWorld(plan.Plan{Family: "planted", Clients: 1}, st.Schedule, st.Faults, sim.RandomWalk{})
		if !w.resyncsCanRepeat() {
			t.Fatalf("the plain world: got no repeatable resyncs, want them")
		}
		tt.set(w)
		if w.resyncsCanRepeat() {
			t.Errorf("with %s: got repeatable resyncs, want none", tt.name)
		}
	}
}
