package world

import (
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/sim"
	"github.com/podsim/podsim/world/quiet"
)

// TestQuietWorldConditions: the world-wide facts the quiet rules read
// (quiet.World's AsWritten and RuntimeRepeats) hold in the plain world,
// and each condition switches one off on its own.
func TestQuietWorldConditions(t *testing.T) {
	for _, tt := range []struct {
		name string
		set  func(w *World)
	}{
		{"natural completion", func(w *World) { w.Runtime.Faults.TerminalRate = 1 }},
		{"errors", func(w *World) { w.Runtime.Faults.ErrorRate = 1 }},
		{"foreign syncer", func(w *World) { w.foreignSyncer = true }},
		{"mutant", func(w *World) { w.workersMutant = "x" }},
		{"kubelet bug", func(w *World) { w.Bugs.B4ShutdownKeepsPhase = true }},
		{"B16 fault mode", func(w *World) { w.Runtime.Faults.UncancellablePull = B16PullTime }},
	} {
		st := plan.SeedStreams(7)
		w := NewWorld(plan.Plan{Family: "planted", Clients: 1}, st.Schedule, st.Faults, sim.RandomWalk{})
		v := settleView{w}
		if !v.AsWritten() || !v.RuntimeRepeats() {
			t.Fatalf("the plain world: got as written %v, runtime repeats %v, want both", v.AsWritten(), v.RuntimeRepeats())
		}
		tt.set(w)
		if v.AsWritten() && v.RuntimeRepeats() {
			t.Errorf("with %s: got both facts, want one off", tt.name)
		}
	}
}

// TestQuietConfigConditions: a pod is steady for the quiet rules only
// while it is in config, not deleted, not terminal, not rejected and
// admitted; each condition switches it off on its own, and a pod the plan
// never named has no config at all.
func TestQuietConfigConditions(t *testing.T) {
	grace := int64(30)
	for _, tt := range []struct {
		name string
		set  func(p *configPod)
	}{
		{"not in config", func(p *configPod) { p.inConfig = false }},
		{"deleted", func(p *configPod) { p.deletion = &grace }},
		{"terminal", func(p *configPod) { p.phase = "Succeeded" }},
		{"rejected", func(p *configPod) { p.rejected = true }},
		{"not admitted", func(p *configPod) { p.admitted = false }},
	} {
		st := plan.SeedStreams(7)
		pl := plan.Plan{Family: "planted", Clients: 1, Node: &plan.Node{APIServer: true}}
		w := NewWorld(pl, st.Schedule, st.Faults, sim.RandomWalk{})
		p := w.newPod(plan.Action{UID: "b", Static: true, Name: "web"})
		p.inConfig, p.admitted, p.version = true, true, 3
		if c := w.quietConfig("b"); !c.Steady || !c.InConfig || !c.Static || c.Version != 3 {
			t.Fatalf("a static pod in config: got %+v, want steady, in config, static, version 3", c)
		}
		tt.set(p)
		if w.quietConfig("b").Steady {
			t.Errorf("%s: got steady, want not", tt.name)
		}
		if c := w.quietConfig("unnamed"); c != (quiet.Config{}) {
			t.Errorf("a pod never named: got %+v, want the zero config", c)
		}
	}
}

// TestKubeResyncRepeatsConditions: in the kubelet's world, a resync repeats
// only while the pod is admitted and the status manager holds Running with
// nothing to write or echo; each condition switches it off on its own.
func TestKubeResyncRepeatsConditions(t *testing.T) {
	for _, tt := range []struct {
		name string
		set  func(w *World, p *configPod)
	}{
		{"not admitted", func(_ *World, p *configPod) { p.admitted = false }},
		{"added in the shutdown", func(_ *World, p *configPod) { p.addedInShutdown = true }},
		{"no status yet", func(w *World, p *configPod) { delete(w.kube.status, p.action.UID) }},
		{"status Pending", func(w *World, p *configPod) { w.kube.statusOf(p.action.UID).Phase = v1.PodPending }},
		{"status Succeeded", func(w *World, p *configPod) { w.kube.statusOf(p.action.UID).Phase = v1.PodSucceeded }},
		{"finished", func(w *World, p *configPod) { w.kube.statusOf(p.action.UID).Finished = true }},
		{"not in the API", func(_ *World, p *configPod) { p.inAPI = false }},
		{"API phase Pending", func(_ *World, p *configPod) { p.apiPhase = v1.PodPending }},
		{"echo due", func(_ *World, p *configPod) { p.echoDue = true }},
	} {
		checkResyncSwitchedOff(t, tt.name, tt.set, "a running, admitted, published pod",
			configPod{action: plan.Action{UID: "a"}, inConfig: true, admitted: true, inAPI: true, apiPhase: v1.PodRunning})
	}
}

// TestKubeResyncRepeatsStatic: a static pod never enters the API (the
// status manager writes nothing for it), so its resync repeats without
// the API's Running; the other kubelet conditions still switch it off,
// and so does an echo due.
func TestKubeResyncRepeatsStatic(t *testing.T) {
	for _, tt := range []struct {
		name string
		set  func(w *World, p *configPod)
	}{
		{"not admitted", func(_ *World, p *configPod) { p.admitted = false }},
		{"no status yet", func(w *World, p *configPod) { delete(w.kube.status, p.action.UID) }},
		{"status Succeeded", func(w *World, p *configPod) { w.kube.statusOf(p.action.UID).Phase = v1.PodSucceeded }},
		{"echo due", func(_ *World, p *configPod) { p.echoDue = true }},
		{"not static", func(_ *World, p *configPod) { p.action.Static = false }},
	} {
		checkResyncSwitchedOff(t, tt.name, tt.set, "a running, admitted static pod",
			configPod{action: plan.Action{UID: "a", Static: true}, inConfig: true, admitted: true})
	}
}

// checkResyncSwitchedOff: pod base, whose status manager holds Running, has
// a repeatable resync in a fresh kubelet world, and none once set (the
// condition called name) is applied.
func checkResyncSwitchedOff(t *testing.T, name string, set func(w *World, p *configPod), base string, pod configPod) {
	t.Helper()
	st := plan.SeedStreams(7)
	pl := plan.Plan{Family: "planted", Clients: 1, Node: &plan.Node{APIServer: true}}
	w := NewWorld(pl, st.Schedule, st.Faults, sim.RandomWalk{})
	p := &pod
	w.kube.statusOf(p.action.UID).Phase = v1.PodRunning
	if !w.kubeResyncRepeats(p) {
		t.Fatalf("%s: got no repeatable resync, want one", base)
	}
	set(w, p)
	if w.kubeResyncRepeats(p) {
		t.Errorf("%s: got a repeatable resync, want none", name)
	}
}
