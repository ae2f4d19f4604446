package run

import (
	"slices"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/sim"
	"github.com/podsim/podsim/world"
)

// runScripted runs plan (every scheduling and fault choice 0) with every
// oracle and fails the test on any violation.
func runScripted(t *testing.T, pl plan.Plan) (*world.World, Result) {
	t.Helper()
	w := world.NewWorld(pl, sim.NewReplay(nil), sim.NewReplay(nil), sim.RandomWalk{})
	r := judge(plan.Family{Name: pl.Family}, 0, w, CheckOptions{}, nil)
	if r.Failed() {
		t.Fatalf("%v\n%s", r, storyOf(pl, r))
	}
	if w.KubeletBusy() {
		t.Errorf("the kubelet is still busy after the settle phase")
	}
	return w, r
}

// shutdownPlan is a script's plan on a node whose shutdown has one
// priority group of grace seconds.
func shutdownPlan(grace int64, actions ...plan.Action) plan.Plan {
	return plan.Plan{Family: "script", Clients: 1, Actions: actions, Node: &plan.Node{APIServer: true,
		ShutdownGroups: []plan.ShutdownGroup{{Priority: 0, Grace: grace}}}}
}

func act(at time.Duration, kind plan.ActionKind, uid string, shape plan.Action) plan.Action {
	shape.At, shape.Kind, shape.UID = at, kind, typesUID(uid)
	if shape.SpecGrace == 0 {
		shape.SpecGrace = 30
	}
	if shape.Grace == 0 && kind != plan.Delete && kind != plan.Evict {
		shape.Grace = -1
	}
	return shape
}

// TestWorldRejectedThenDeleted: a pod that does not fit is rejected (never
// synced, Failed in the API once the workers synced), and after its
// deletion housekeeping drives it through the workers so that the status
// manager can delete it (#118472).
func TestWorldRejectedThenDeleted(t *testing.T) {
	pl := plan.Plan{Family: "script", Clients: 1, Node: &plan.Node{CPU: 2, APIServer: true, EchoLag: time.Second},
		Actions: []plan.Action{act(0, plan.Create, "a", plan.Action{CPU: 2}), act(0, plan.Create, "b", plan.Action{CPU: 1}),
			act(3*time.Second, plan.Delete, "b", plan.Action{Grace: 30})}}
	w, r := runScripted(t, pl)
	a, b := w.View().Kubelet().Pod("a"), w.View().Kubelet().Pod("b")
	if !a.Admitted || !b.Rejected || b.Admitted {
		t.Fatalf("got a admitted=%v, b rejected=%v admitted=%v; want a admitted, b rejected", a.Admitted, b.Rejected, b.Admitted)
	}
	if b.InAPI || b.APIPhase != v1.PodFailed {
		t.Errorf("pod b: got inAPI=%v phase %q, want deleted from the API with phase Failed", b.InAPI, b.APIPhase)
	}
	if a.APIPhase != v1.PodRunning || !a.InAPI {
		t.Errorf("pod a: got inAPI=%v phase %q, want Running in the API", a.InAPI, a.APIPhase)
	}
	for _, m := range []string{plan.MarkAdmissionRejected, plan.MarkRejectedDeletedGone} {
		if !slices.Contains(r.Marks, m) {
			t.Errorf("mark %s not reached: %v", m, r.Marks)
		}
	}
}

// TestWorldNodeShutdown: the shutdown kills both priority groups with a
// status function that makes them Failed, and rejects a later pod.
func TestWorldNodeShutdown(t *testing.T) {
	pl := plan.Plan{Family: "script", Clients: 1, Node: &plan.Node{APIServer: true,
		ShutdownGroups: []plan.ShutdownGroup{{Priority: 0, Grace: 5}, {Priority: 1000, Grace: 2}}},
		Actions: []plan.Action{act(0, plan.Create, "a", plan.Action{}), act(0, plan.Create, "b", plan.Action{Priority: 1000}),
			act(2*time.Second, plan.Shutdown, "", plan.Action{}), act(3*time.Second, plan.Create, "c", plan.Action{})}}
	w, r := runScripted(t, pl)
	for _, uid := range []string{"a", "b"} {
		if p := w.View().Kubelet().Pod(typesUID(uid)); p.APIPhase != v1.PodFailed {
			t.Errorf("pod %s: got API phase %q, want Failed", uid, p.APIPhase)
		}
	}
	if c := w.View().Kubelet().Pod("c"); !c.Rejected || c.APIPhase != v1.PodFailed {
		t.Errorf("pod c: got rejected=%v phase %q, want rejected, Failed", c.Rejected, c.APIPhase)
	}
	if !slices.Contains(r.Marks, plan.MarkShutdownKilled) || !slices.Contains(r.Marks, plan.MarkShutdownAdmissionClosed) {
		t.Errorf("got marks %v", r.Marks)
	}
}

// TestWorldShutdownCancel: a pod created during the shutdown is rejected;
// the cancellation (read at once: the kills returned) reopens admission, so
// the next pod is admitted; the next shutdown kills it with a snapshot of
// its own, and a Shutdown while that one is in force changes nothing, so a
// pod created then is rejected. (A cancellation that comes while the kills
// run is read when they returned: the family's sweep reaches that, its
// mark cancel-during-shutdown, and the conformance check's P7 judges it.)
func TestWorldShutdownCancel(t *testing.T) {
	pl := shutdownPlan(5, act(0, plan.Create, "a", plan.Action{}),
		act(time.Second, plan.Shutdown, "", plan.Action{}), act(1500*time.Millisecond, plan.Create, "b", plan.Action{}),
		act(3*time.Second, plan.ShutdownCancel, "", plan.Action{}), act(4*time.Second, plan.Create, "c", plan.Action{}),
		act(5*time.Second, plan.Shutdown, "", plan.Action{}), act(6*time.Second, plan.Shutdown, "", plan.Action{}),
		act(7*time.Second, plan.Create, "d", plan.Action{}))
	w, r := runScripted(t, pl)
	k := w.View().Kubelet()
	for _, uid := range []string{"b", "d"} {
		if p := k.Pod(typesUID(uid)); !p.Rejected || !p.AddedInShutdown {
			t.Errorf("pod %s (created during a shutdown): rejected=%v added in shutdown=%v, want both", uid, p.Rejected, p.AddedInShutdown)
		}
	}
	if c := k.Pod("c"); c.Rejected || c.AddedInShutdown || !c.Admitted || c.APIPhase != v1.PodFailed {
		t.Errorf("pod c (created after the cancellation): %+v, want admitted, then Failed by the second shutdown", c)
	}
	for _, m := range []string{plan.MarkShutdownCancelled, plan.MarkAdmittedAfterCancel, plan.MarkShutdownAgain} {
		if !slices.Contains(r.Marks, m) {
			t.Errorf("mark %s not reached: %v", m, r.Marks)
		}
	}
	if !k.ShuttingDown() || k.ShutdownAt() != 5*time.Second {
		t.Errorf("at the end: shutting down %v since %v, want since 5s", k.ShuttingDown(), k.ShutdownAt())
	}
}

// TestWorldEviction: the evicted pod ends Failed and the eviction manager
// waits for its cleanup; a critical pod is spared.
func TestWorldEviction(t *testing.T) {
	pl := plan.Plan{Family: "script", Clients: 1, Node: &plan.Node{APIServer: true},
		Actions: []plan.Action{act(0, plan.Create, "a", plan.Action{}), act(0, plan.Create, "b", plan.Action{Priority: plan.CriticalPriority}),
			act(2*time.Second, plan.Evict, "a", plan.Action{Grace: 0}), act(2*time.Second, plan.Evict, "b", plan.Action{Grace: 0})}}
	w, r := runScripted(t, pl)
	if a := w.View().Kubelet().Pod("a"); a.APIPhase != v1.PodFailed {
		t.Errorf("pod a: got API phase %q, want Failed", a.APIPhase)
	}
	if b := w.View().Kubelet().Pod("b"); b.APIPhase != v1.PodRunning {
		t.Errorf("pod b: got API phase %q, want Running (critical pods are not evicted)", b.APIPhase)
	}
	if !slices.Contains(r.Marks, plan.MarkEvictionCleanupWaited) || !slices.Contains(r.Marks, plan.MarkEvictionSpared) {
		t.Errorf("got marks %v", r.Marks)
	}
}

// TestWorldKubeletRestart: after a restart, a terminal pod starts out
// terminated (only SyncTerminatedPod runs) and, being deleted, leaves the
// API; a pod that left config while running is killed as a runtime pod.
func TestWorldKubeletRestart(t *testing.T) {
	pl := plan.Plan{Family: "script", Clients: 1, Node: &plan.Node{APIServer: true},
		Actions: []plan.Action{act(0, plan.Create, "a", plan.Action{}), act(0, plan.Create, "b", plan.Action{}),
			act(2*time.Second, plan.Finish, "a", plan.Action{Terminal: "Succeeded"}), act(3*time.Second, plan.Delete, "a", plan.Action{Grace: 5}),
			act(10*time.Second, plan.Vanish, "b", plan.Action{}), act(10*time.Second, plan.Restart, "", plan.Action{})}}
	w, r := runScripted(t, pl)
	if w.Restarts() != 1 {
		t.Fatalf("got epoch %d, want 1", w.Restarts())
	}
	if a := w.View().Kubelet().Pod("a"); a.InAPI {
		t.Errorf("pod a: still in the API (phase %q)", a.APIPhase)
	}
	if n := w.Runtime.Running("b"); n != 0 {
		t.Errorf("pod b: %d containers still run, want 0", n)
	}
	for _, m := range []string{plan.MarkRestartOrphanKilled} {
		if !slices.Contains(r.Marks, m) {
			t.Errorf("mark %s not reached: %v", m, r.Marks)
		}
	}
}

func typesUID(s string) types.UID { return types.UID(s) }

// TestWorldRestartInShutdown: the kubelet restarts after the node
// shutdown's processing, before the node powers off. The restarted
// kubelet learns of the shutdown at its start (logind announced it to the
// old process only): it admits again the pod from before the shutdown
// and rejects the one created after the restart; the one first added
// during the shutdown was rejected by the old kubelet, and its Failed
// phase (in the API by then) skips admission. With B17
// (kubernetes#122674) the new kubelet never learns of it, admits and
// starts the pod created after the restart, and K5 says so.
func TestWorldRestartInShutdown(t *testing.T) {
	pl := shutdownPlan(2, act(0, plan.Create, "a", plan.Action{}),
		act(time.Second, plan.Shutdown, "", plan.Action{}), act(1500*time.Millisecond, plan.Create, "b", plan.Action{}),
		act(5*time.Second, plan.Restart, "", plan.Action{}), act(6*time.Second, plan.Create, "c", plan.Action{}))
	w, r := runScripted(t, pl)
	k := w.View().Kubelet()
	if a := k.Pod("a"); !a.Admitted || a.AddedInShutdown {
		t.Errorf("pod a (from before the shutdown): %+v, want admitted again by the restarted kubelet", a)
	}
	if b := k.Pod("b"); !b.AddedInShutdown || b.APIPhase != v1.PodFailed {
		t.Errorf("pod b (created during the shutdown, before the restart): %+v, want added in shutdown, Failed", b)
	}
	if c := k.Pod("c"); !c.Rejected || !c.AddedInShutdown {
		t.Errorf("pod c (created after the restart): rejected=%v added in shutdown=%v, want both", c.Rejected, c.AddedInShutdown)
	}
	for _, m := range []string{plan.MarkRestartInShutdown, plan.MarkRestartShutdownRejected} {
		if !slices.Contains(r.Marks, m) {
			t.Errorf("mark %s not reached: %v", m, r.Marks)
		}
	}
	if !k.ShuttingDown() || k.ShutdownAt() != time.Second {
		t.Errorf("after the restart: shutting down %v since %v, want since 1s", k.ShuttingDown(), k.ShutdownAt())
	}

	bug := world.NewWorld(pl, sim.NewReplay(nil), sim.NewReplay(nil), sim.RandomWalk{})
	bug.Bugs.B17RestartForgetsShutdown = true
	got := judge(plan.Family{Name: pl.Family}, 0, bug, CheckOptions{}, nil)
	want := "SyncPod began for pod c, first added at 6s, after the node shutdown began at 1s"
	if len(got.Violations) != 1 || got.Violations[0].Invariant != "K5" || !strings.HasPrefix(got.Violations[0].Message, want) {
		t.Errorf("with B17: got %v, want only K5 %q", got.Violations, want)
	}
}

// TestWorldCancelAfterRestartInShutdown: logind withdraws a shutdown that
// a restarted kubelet learned of only at its start: admission reopens, so
// a pod created afterwards is admitted and runs, first added after the
// shutdown ended (K5 does not apply to it).
func TestWorldCancelAfterRestartInShutdown(t *testing.T) {
	pl := shutdownPlan(2, act(0, plan.Create, "a", plan.Action{}),
		act(time.Second, plan.Shutdown, "", plan.Action{}), act(5*time.Second, plan.Restart, "", plan.Action{}),
		act(6*time.Second, plan.ShutdownCancel, "", plan.Action{}), act(7*time.Second, plan.Create, "c", plan.Action{}))
	w, _ := runScripted(t, pl)
	k := w.View().Kubelet()
	if c := k.Pod("c"); !c.Admitted || c.AddedInShutdown || c.APIPhase != v1.PodRunning {
		t.Errorf("pod c (created after the withdrawal): %+v, want admitted and running", c)
	}
	if k.ShuttingDown() {
		t.Errorf("after the withdrawal: still shutting down since %v", k.ShutdownAt())
	}
}
