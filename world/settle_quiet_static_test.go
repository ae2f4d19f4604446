package world

import (
	"testing"

	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/sim"
	"github.com/podsim/podsim/workers"
)

// TestRetryConfigRepeatsConditions: a static waiter's retry repeats, as far
// as its config and last update go, only while the pod is a static pod in
// config, not deleted, not terminal, not rejected, admitted, and its last
// UpdatePod was a plain sync of its current version; each condition
// switches it off on its own.
func TestRetryConfigRepeatsConditions(t *testing.T) {
	grace := int64(30)
	for _, tt := range []struct {
		name string
		set  func(w *World, p *configPod)
	}{
		{"not static", func(_ *World, p *configPod) { p.action.Static = false }},
		{"not in config", func(_ *World, p *configPod) { p.inConfig = false }},
		{"deleted", func(_ *World, p *configPod) { p.deletion = &grace }},
		{"terminal", func(_ *World, p *configPod) { p.phase = "Succeeded" }},
		{"rejected", func(_ *World, p *configPod) { p.rejected = true }},
		{"not admitted", func(_ *World, p *configPod) { p.admitted = false }},
		{"no update", func(w *World, _ *configPod) { delete(w.quiet.updates, "b") }},
		{"a newer version", func(_ *World, p *configPod) { p.version++ }},
		{"last update a create", func(w *World, p *configPod) {
			w.quiet.updates["b"] = lastUpdate{updateType: workers.SyncPodCreate, version: p.version}
		}},
		{"last update with a kill", func(w *World, p *configPod) {
			w.quiet.updates["b"] = lastUpdate{updateType: workers.SyncPodSync, version: p.version, kill: true}
		}},
	} {
		st := plan.SeedStreams(7)
		pl := plan.Plan{Family: "planted", Clients: 1, Node: &plan.Node{APIServer: true}}
		w := NewWorld(pl, st.Schedule, st.Faults, sim.RandomWalk{})
		p := w.newPod(plan.Action{UID: "b", Static: true, Name: "web"})
		p.inConfig, p.admitted, p.version = true, true, 1
		w.quiet.updates = map[types.UID]lastUpdate{}
		w.quiet.updates["b"] = lastUpdate{updateType: workers.SyncPodSync, version: 1}
		if !w.retryConfigRepeats("b") {
			t.Fatalf("a waiting static pod: got no repeatable retry, want one")
		}
		tt.set(w, p)
		if w.retryConfigRepeats("b") {
			t.Errorf("%s: got a repeatable retry, want none", tt.name)
		}
	}
}

// TestWaitingIdleConditions: a record counts as a waiter idle with its
// retry's update pending only while it never started, no termination is
// requested, it is not working and has no call in flight, a sync update
// is pending, no kill waits, no restart is requested and its worker is
// there; each condition switches it off on its own.
func TestWaitingIdleConditions(t *testing.T) {
	waiting := workers.PodStateSnapshot{UID: "b", State: "P", HasPendingUpdate: true,
		PendingUpdateType: workers.SyncPodSync, HasWorker: true}
	if !waitingIdle(waiting) {
		t.Fatalf("a refused waiter: got not waiting, want waiting")
	}
	for _, tt := range []struct {
		name string
		set  func(s *workers.PodStateSnapshot)
	}{
		{"started", func(s *workers.PodStateSnapshot) { s.Started = true }},
		{"termination requested", func(s *workers.PodStateSnapshot) { s.TerminationRequested = true }},
		{"working", func(s *workers.PodStateSnapshot) { s.Working = true }},
		{"in flight", func(s *workers.PodStateSnapshot) { s.InFlight = true }},
		{"nothing pending", func(s *workers.PodStateSnapshot) { s.HasPendingUpdate = false }},
		{"an update pending", func(s *workers.PodStateSnapshot) { s.PendingUpdateType = workers.SyncPodUpdate }},
		{"a kill waiting", func(s *workers.PodStateSnapshot) { s.PendingKills = 1 }},
		{"restart requested", func(s *workers.PodStateSnapshot) { s.RestartRequested = true }},
		{"no worker", func(s *workers.PodStateSnapshot) { s.HasWorker = false }},
	} {
		s := waiting
		tt.set(&s)
		if waitingIdle(s) {
			t.Errorf("%s: got waiting, want not", tt.name)
		}
	}
}
