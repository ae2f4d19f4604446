package scenarios

import (
	"slices"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/sim"
)

// runScripted runs plan (every scheduling and fault choice 0) with every
// oracle and fails the test on any violation.
func runScripted(t *testing.T, plan Plan) (*World, Result) {
	t.Helper()
	w := NewWorld(plan, sim.NewReplay(nil), sim.NewReplay(nil), sim.RandomWalk{})
	r := judge(Family{Name: plan.Family}, 0, w, CheckOptions{})
	if r.Failed() {
		t.Fatalf("%v\n%s", r, storyOf(plan, r))
	}
	if w.KubeletBusy() {
		t.Errorf("the kubelet is still busy after the settle phase")
	}
	return w, r
}

func act(at time.Duration, kind ActionKind, uid string, shape Action) Action {
	shape.At, shape.Kind, shape.UID = at, kind, typesUID(uid)
	if shape.SpecGrace == 0 {
		shape.SpecGrace = 30
	}
	if shape.Grace == 0 && kind != Delete && kind != Evict {
		shape.Grace = -1
	}
	return shape
}

// TestWorldRejectedThenDeleted: a pod that does not fit is rejected (never
// synced, Failed in the API once the workers synced), and after its
// deletion housekeeping drives it through the workers so that the status
// manager can delete it (#118472).
func TestWorldRejectedThenDeleted(t *testing.T) {
	plan := Plan{Family: "script", Clients: 1, Node: &Node{CPU: 2, APIServer: true, EchoLag: time.Second},
		Actions: []Action{act(0, Create, "a", Action{CPU: 2}), act(0, Create, "b", Action{CPU: 1}),
			act(3*time.Second, Delete, "b", Action{Grace: 30})}}
	w, r := runScripted(t, plan)
	a, b := w.pods["a"], w.pods["b"]
	if !a.admitted || !b.rejected || b.admitted {
		t.Fatalf("got a admitted=%v, b rejected=%v admitted=%v; want a admitted, b rejected", a.admitted, b.rejected, b.admitted)
	}
	if b.inAPI || b.apiPhase != v1.PodFailed {
		t.Errorf("pod b: got inAPI=%v phase %q, want deleted from the API with phase Failed", b.inAPI, b.apiPhase)
	}
	if a.apiPhase != v1.PodRunning || !a.inAPI {
		t.Errorf("pod a: got inAPI=%v phase %q, want Running in the API", a.inAPI, a.apiPhase)
	}
	for _, m := range []string{MarkAdmissionRejected, MarkRejectedDeletedGone} {
		if !slices.Contains(r.Marks, m) {
			t.Errorf("mark %s not reached: %v", m, r.Marks)
		}
	}
}

// TestWorldNodeShutdown: the shutdown kills both priority groups with a
// status function that makes them Failed, and rejects a later pod.
func TestWorldNodeShutdown(t *testing.T) {
	plan := Plan{Family: "script", Clients: 1, Node: &Node{APIServer: true,
		ShutdownGroups: []ShutdownGroup{{Priority: 0, Grace: 5}, {Priority: 1000, Grace: 2}}},
		Actions: []Action{act(0, Create, "a", Action{}), act(0, Create, "b", Action{Priority: 1000}),
			act(2*time.Second, Shutdown, "", Action{}), act(3*time.Second, Create, "c", Action{})}}
	w, r := runScripted(t, plan)
	for _, uid := range []string{"a", "b"} {
		if p := w.pods[typesUID(uid)]; p.apiPhase != v1.PodFailed {
			t.Errorf("pod %s: got API phase %q, want Failed", uid, p.apiPhase)
		}
	}
	if c := w.pods["c"]; !c.rejected || c.apiPhase != v1.PodFailed {
		t.Errorf("pod c: got rejected=%v phase %q, want rejected, Failed", c.rejected, c.apiPhase)
	}
	if !slices.Contains(r.Marks, MarkShutdownKilled) || !slices.Contains(r.Marks, MarkShutdownAdmissionClosed) {
		t.Errorf("got marks %v", r.Marks)
	}
}

// TestWorldEviction: the evicted pod ends Failed and the eviction manager
// waits for its cleanup; a critical pod is spared.
func TestWorldEviction(t *testing.T) {
	plan := Plan{Family: "script", Clients: 1, Node: &Node{APIServer: true},
		Actions: []Action{act(0, Create, "a", Action{}), act(0, Create, "b", Action{Priority: CriticalPriority}),
			act(2*time.Second, Evict, "a", Action{Grace: 0}), act(2*time.Second, Evict, "b", Action{Grace: 0})}}
	w, r := runScripted(t, plan)
	if a := w.pods["a"]; a.apiPhase != v1.PodFailed {
		t.Errorf("pod a: got API phase %q, want Failed", a.apiPhase)
	}
	if b := w.pods["b"]; b.apiPhase != v1.PodRunning {
		t.Errorf("pod b: got API phase %q, want Running (critical pods are not evicted)", b.apiPhase)
	}
	if !slices.Contains(r.Marks, MarkEvictionCleanupWaited) || !slices.Contains(r.Marks, MarkEvictionSpared) {
		t.Errorf("got marks %v", r.Marks)
	}
}

// TestWorldKubeletRestart: after a restart, a terminal pod starts out
// terminated (only SyncTerminatedPod runs) and, being deleted, leaves the
// API; a pod that left config while running is killed as a runtime pod.
func TestWorldKubeletRestart(t *testing.T) {
	plan := Plan{Family: "script", Clients: 1, Node: &Node{APIServer: true},
		Actions: []Action{act(0, Create, "a", Action{}), act(0, Create, "b", Action{}),
			act(2*time.Second, Finish, "a", Action{Terminal: "Succeeded"}), act(3*time.Second, Delete, "a", Action{Grace: 5}),
			act(10*time.Second, Vanish, "b", Action{}), act(10*time.Second, Restart, "", Action{})}}
	w, r := runScripted(t, plan)
	if w.epoch != 1 {
		t.Fatalf("got epoch %d, want 1", w.epoch)
	}
	if a := w.pods["a"]; a.inAPI {
		t.Errorf("pod a: still in the API (phase %q)", a.apiPhase)
	}
	if n := w.Runtime.Running("b"); n != 0 {
		t.Errorf("pod b: %d containers still run, want 0", n)
	}
	for _, m := range []string{MarkRestartOrphanKilled} {
		if !slices.Contains(r.Marks, m) {
			t.Errorf("mark %s not reached: %v", m, r.Marks)
		}
	}
}

func typesUID(s string) types.UID { return types.UID(s) }
