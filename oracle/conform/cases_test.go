package conform

import (
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/model/ops"
	"github.com/podsim/podsim/plan"
)

func queries(uid string) []ops.Query {
	var out []ops.Query
	for k := ops.IsPodKnownTerminated; k <= ops.ShouldPodContentBeRemoved; k++ {
		out = append(out, ops.Query{Kind: k, UID: uid})
	}
	return out
}

// clientPlan: without a kubelet, create a, update it, query it (P1).
func clientPlan() plan.Plan {
	return plan.Plan{Clients: 1, Actions: []plan.Action{act(plan.Create, "a", 0), act(plan.Update, "a", time.Second),
		act(plan.Query, "a", 2*time.Second)}}
}

// runClientPlan plays clientPlan; update is the UpdatePod the Update
// action makes (nil: none), ask the queries of the Query action.
func runClientPlan(update *ops.UpdatePod, ask []ops.Query) []history.Violation {
	s := newScript(clientPlan(), false)
	s.action(func() {
		s.v.pod("a").InConfig = true
		s.call("client/0", upd(ops.Create, pod("a", 1)), nil)
	})
	s.action(func() {
		if update != nil {
			s.call("client/0", *update, nil)
		}
	})
	s.action(func() {
		for _, q := range ask {
			s.call("client/0", q, ops.Answer(false))
		}
	})
	return s.verdict()
}

func TestP1ClientActions(t *testing.T) {
	good := upd(ops.Update, pod("a", 2))
	wantNone(t, runClientPlan(&good, queries("a")))
	// The config source delivers the same pod object again: the update
	// carries no new version (a lost config change, as a bug that drops
	// the pod's version bump would look).
	stale := upd(ops.Update, pod("a", 1))
	wantViolation(t, runClientPlan(&stale, queries("a")), "P1", "not newer than 1")
	wantViolation(t, runClientPlan(nil, queries("a")), "P1", "made 0 UpdatePod call(s), want 1")
	sync := upd(ops.Sync, pod("a", 2))
	wantViolation(t, runClientPlan(&sync, queries("a")), "P1", "type sync, want update")
	wantViolation(t, runClientPlan(&good, queries("a")[:6]), "P1", "asked")
}

// TestP1Unfinished: a client that stops before its last action.
func TestP1Unfinished(t *testing.T) {
	s := newScript(clientPlan(), false)
	s.action(func() {
		s.v.pod("a").InConfig = true
		s.call("client/0", upd(ops.Create, pod("a", 1)), nil)
	})
	wantViolation(t, s.verdict(), "P1", "carried out 1 of its 3 actions")
}

// admissionPlan: a node that fits two units of CPU; a (1 CPU) is
// admitted, b (2 CPU) must be rejected next to it, then b is updated.
func admissionPlan() plan.Plan {
	b := act(plan.Create, "b", time.Second)
	b.CPU = 2
	return plan.Plan{Clients: 1, Node: &plan.Node{CPU: 2, APIServer: true},
		Actions: []plan.Action{act(plan.Create, "a", 0), b, act(plan.Update, "b", 2*time.Second)}}
}

// runAdmission plays admissionPlan: createB, the rejected b is created
// anyway; updateB, its update reaches the pod workers.
func runAdmission(createB, updateB bool) []history.Violation {
	s := newScript(admissionPlan(), true)
	s.action(func() {
		a := s.v.pod("a")
		s.admission("a")
		a.InConfig, a.Admitted, a.InAPI = true, true, true
		s.call("client/0", upd(ops.Create, pod("a", 1)), nil)
	})
	s.action(func() {
		b := s.v.pod("b")
		s.admission("b", "a")
		b.InConfig, b.InAPI = true, true
		if createB {
			b.Admitted = true
			s.call("client/0", upd(ops.Create, pod("b", 1)), nil)
		} else {
			b.Rejected = true
		}
	})
	s.action(func() {
		if updateB {
			s.call("client/0", upd(ops.Update, pod("b", 2)), nil)
		}
	})
	return s.verdict()
}

func TestP2Admission(t *testing.T) {
	wantNone(t, runAdmission(false, false))
	wantViolation(t, runAdmission(true, false), "P1", "create uid=b", "made 1 UpdatePod call(s), want 0")
	// B13's premise broken the other way: a pod rejected at admission
	// still gets its config updates.
	wantViolation(t, runAdmission(false, true), "P1", "update uid=b", "want 0")
}

// TestP2NoAdmission: a new pod object added without admission, and one
// admitted while the node shuts down.
func TestP2NoAdmission(t *testing.T) {
	s := newScript(admissionPlan(), true)
	s.action(func() { s.call("client/0", upd(ops.Create, pod("a", 1)), nil) })
	wantViolation(t, s.verdict(), "P2", "without admission")

	s = newScript(admissionPlan(), true)
	s.v.shutdownAt = time.Second
	s.action(func() { s.admission("a") })
	wantViolation(t, s.verdict(), "P2", "admitted during the node shutdown")
}

// runHousekeeping: without a kubelet, a and b are created; housekeeping's
// SyncKnownPods names desired and learns that only a is known: it owes b
// a create (restart).
func runHousekeeping(desired []string, restartB bool) []history.Violation {
	p := plan.Plan{Clients: 1, Actions: []plan.Action{act(plan.Create, "a", 0), act(plan.Create, "b", 0),
		act(plan.SyncKnown, "", time.Second)}}
	s := newScript(p, false)
	for i, uid := range []string{"a", "b"} {
		s.action(func() {
			s.v.pod(types.UID(uid)).InConfig = true
			s.call("client/0", upd(ops.Create, pod(uid, i+1)), nil)
		})
	}
	s.action(func() {
		s.call("client/0", ops.SyncKnownPods{Desired: desired}, ops.KnownPods{{UID: "a"}})
		if restartB {
			s.call("client/0", upd(ops.Create, pod("b", 2)), nil)
		}
	})
	return s.verdict()
}

func TestP3Housekeeping(t *testing.T) {
	wantNone(t, runHousekeeping([]string{"a", "b"}, true))
	// Like K4's bug, seen from the plan: an active pod the workers forgot
	// is never re-created.
	wantViolation(t, runHousekeeping([]string{"a", "b"}, false), "P3", "re-created []", "[b]")
	wantViolation(t, runHousekeeping([]string{"a"}, true), "P3", "desired pods [a]")
}

// runRestart: pods a then b are created; the kubelet restarts and adds
// them again (in the order given), or does not restart at all.
func runRestart(restarted bool, order ...string) []history.Violation {
	p := plan.Plan{Clients: 1, Node: &plan.Node{}, Actions: []plan.Action{act(plan.Create, "a", 0),
		act(plan.Create, "b", 0), act(plan.Restart, "", time.Second)}}
	s := newScript(p, true)
	for i, uid := range []string{"a", "b"} {
		s.action(func() {
			pp := s.v.pod(types.UID(uid))
			s.admission(uid)
			pp.InConfig, pp.Admitted, pp.Incarnation = true, true, i+1
			s.call("client/0", upd(ops.Create, pod(uid, 1)), nil)
		})
	}
	s.action(func() {
		if restarted {
			s.ev("client/0", history.Event{Kind: history.Restarted})
		}
		for _, uid := range order {
			s.admission(uid)
			s.call("client/0", upd(ops.Create, pod(uid, 1)), nil)
		}
	})
	return s.verdict()
}

// runRestartInShutdown: pod a is admitted before a node shutdown and pod b
// first added during it (inShutdown) — or, with !inShutdown, after the
// shutdown ended; the kubelet restarts during the shutdown and adds again
// only a.
func runRestartInShutdown(inShutdown bool) []history.Violation {
	p := plan.Plan{Clients: 1, Node: &plan.Node{}, Actions: []plan.Action{act(plan.Create, "a", 0),
		act(plan.Create, "b", 0), act(plan.Restart, "", time.Second)}}
	s := newScript(p, true)
	s.action(func() {
		s.admission("a")
		a := s.v.pod("a")
		a.InConfig, a.Admitted, a.Incarnation = true, true, 1
		s.call("client/0", upd(ops.Create, pod("a", 1)), nil)
	})
	s.v.shutdownAt = time.Second
	s.action(func() {
		b := s.v.pod("b")
		b.InConfig, b.Rejected, b.Incarnation, b.AddedInShutdown = true, true, 2, true
	})
	s.v.cancelled = !inShutdown
	s.action(func() {
		s.ev("client/0", history.Event{Kind: history.Restarted})
		s.admission("a")
		s.call("client/0", upd(ops.Create, pod("a", 1)), nil)
	})
	return s.verdict()
}

// TestP4RestartInShutdown: a kubelet restarted during a node shutdown may
// reject, with no admission note, a pod first added during it (the
// restarted kubelet learned of the shutdown at its start); a pod first
// added in a shutdown whose cancellation was read must be added again.
func TestP4RestartInShutdown(t *testing.T) {
	wantNone(t, runRestartInShutdown(true))
	wantViolation(t, runRestartInShutdown(false), "P4", "b, in config, was not added again")
}

func TestP4Restart(t *testing.T) {
	wantNone(t, runRestart(true, "a", "b"))
	wantViolation(t, runRestart(true, "b", "a"), "P4", "out of creation order")
	wantViolation(t, runRestart(true, "a"), "P4", "b, in config, was not added again")
	wantViolation(t, runRestart(false, "a", "b"), "P4", "did not restart")
}

// runStatus: pod a is admitted, runs and is terminated; the status
// manager writes written, and holds final at the end; the config source
// has echoed phase echoed.
func runStatus(written, final v1.PodPhase) []history.Violation {
	return runStatusEcho(written, final, written)
}

func runStatusEcho(written, final, echoed v1.PodPhase) []history.Violation {
	p := plan.Plan{Clients: 1, Node: &plan.Node{APIServer: true}, Actions: []plan.Action{act(plan.Create, "a", 0)}}
	s := newScript(p, true)
	s.action(func() { s.admitCreate("a") })
	end := func(fn ops.SyncFn) {
		s.ev("worker/a", history.Event{Kind: history.CallbackEnd, Input: ops.SyncEnd{UID: "a", Fn: fn, Outcome: ops.OK}})
	}
	end(ops.SyncPod)
	s.note("statusmanager", history.PhaseWritten{UID: "a", Phase: v1.PodRunning})
	end(ops.SyncTerminatingPod)
	end(ops.SyncTerminatedPod)
	s.note("statusmanager", history.PhaseWritten{UID: "a", Phase: written})
	a := s.v.pod("a")
	a.StatusPhase, a.APIPhase, a.Phase = final, written, echoed
	s.settleAt(time.Minute)
	return s.verdict()
}

func TestP5Status(t *testing.T) {
	wantNone(t, runStatus(v1.PodFailed, v1.PodFailed))
	// Like B4 (the shutdown's status function keeps the phase), but with
	// no status function at all: a terminated pod published as Running.
	wantViolation(t, runStatus(v1.PodRunning, v1.PodFailed), "P5", "wrote phase Running", "[Failed]")
	wantViolation(t, runStatus(v1.PodFailed, v1.PodRunning), "P5", "holds phase \"Running\" at the end")
	// P9: the API's phase never came back to config (a lost watch echo).
	wantViolation(t, runStatusEcho(v1.PodFailed, v1.PodFailed, v1.PodRunning), "P9",
		`phase "Failed" in the API, "Running" in config`)
}

// TestP9EchoWindow: a write just before the end may still wait for its
// echo when the settle phase ran its full length: not judged.
func TestP9EchoWindow(t *testing.T) {
	p := plan.Plan{Clients: 1, Node: &plan.Node{APIServer: true, EchoLag: time.Second}, Actions: []plan.Action{act(plan.Create, "a", 0)}}
	s := newScript(p, true)
	s.action(func() { s.admitCreate("a") })
	s.ev("worker/a", history.Event{Kind: history.CallbackEnd, Input: ops.SyncEnd{UID: "a", Fn: ops.SyncPod, Outcome: ops.OK, IsTerminal: true}})
	s.o.Observe(s.v, &history.Event{Seq: s.seq, At: 50 * time.Second, Kind: history.Noted, Goroutine: "statusmanager",
		Note: history.PhaseWritten{UID: "a", Phase: v1.PodSucceeded}})
	a := s.v.pod("a")
	a.StatusPhase, a.APIPhase, a.Phase = v1.PodSucceeded, v1.PodSucceeded, v1.PodRunning
	s.settleAt(58 * time.Second) // within 1 + 1 + 2 + 5 + 1 = 10 s
	wantNone(t, s.verdict())
	s.settleAt(61 * time.Second)
	wantViolation(t, s.verdict(), "P9", "in config at the end")
}

// TestP4CreationOrder: the kubelet must know each pod object by its
// creation order (a restart re-adds in it): one that lost count does not.
func TestP4CreationOrder(t *testing.T) {
	p := plan.Plan{Clients: 1, Node: &plan.Node{}, Actions: []plan.Action{act(plan.Create, "a", 0)}}
	s := newScript(p, true)
	s.action(func() { s.admitCreate("a") })
	s.v.pod("a").Incarnation = 0
	s.settleAt(time.Minute)
	wantViolation(t, s.verdict(), "P4", "pod object 0, but it is the 1-th created")
}

// TestP5StatusFunction: after an eviction's kill, SyncTerminatingPod may
// have applied its status function: Failed is accepted before
// SyncTerminatedPod.
func TestP5StatusFunction(t *testing.T) {
	p := plan.Plan{Clients: 1, Node: &plan.Node{APIServer: true}, Actions: []plan.Action{act(plan.Create, "a", 0)}}
	s := newScript(p, true)
	s.action(func() {
		s.admission("a")
		s.call("client/0", upd(ops.Create, pod("a", 1)), nil)
	})
	s.ev("worker/a", history.Event{Kind: history.CallbackEnd, Input: ops.SyncEnd{UID: "a", Fn: ops.SyncPod, Outcome: ops.OK}})
	s.call("eviction/1", ops.UpdatePod{Type: ops.Kill, Pod: pod("a", 1), Kill: ops.KillOptions{Evict: true, CompletionID: 1}}, nil)
	s.ev("worker/a", history.Event{Kind: history.CallbackEnd, Input: ops.SyncEnd{UID: "a", Fn: ops.SyncTerminatingPod, Outcome: ops.OK}})
	s.note("statusmanager", history.PhaseWritten{UID: "a", Phase: v1.PodFailed})
	wantNone(t, s.verdict())
}

// runDelete: pod a, admitted, is deleted with grace 5 through the API
// server; the request is noted with noted's grace and the update carries
// deletion grace sent.
func runDelete(noted, sent int64) []history.Violation {
	del := act(plan.Delete, "a", time.Second)
	del.Grace = 5
	p := plan.Plan{Clients: 1, Node: &plan.Node{APIServer: true}, Actions: []plan.Action{act(plan.Create, "a", 0), del}}
	s := newScript(p, true)
	s.action(func() { s.admitCreate("a") })
	s.action(func() {
		s.note("client/0", history.DeleteRequested{UID: "a", Grace: noted})
		u := pod("a", 2)
		u.DeletionTimestamp, u.HasDeletionGrace, u.DeletionGrace = true, true, sent
		s.call("client/0", upd(ops.Update, u), nil)
	})
	return s.verdict()
}

func TestP1Delete(t *testing.T) {
	wantNone(t, runDelete(5, 5))
	wantViolation(t, runDelete(5, 0), "P1", "deletion true grace 0, want grace 5")
	wantViolation(t, runDelete(30, 5), "P1", "delete request noted false, want true")
}

// TestP1KillNow: KillPodNow's kill must be followed by its wait.
func TestP1KillNow(t *testing.T) {
	kn := act(plan.KillNow, "a", time.Second)
	kn.Grace = 2
	p := plan.Plan{Clients: 1, Actions: []plan.Action{act(plan.Create, "a", 0), kn}}
	run := func(wait bool) []history.Violation {
		s := newScript(p, false)
		s.action(func() {
			s.v.pod("a").InConfig = true
			s.call("client/0", upd(ops.Create, pod("a", 1)), nil)
		})
		s.action(func() {
			s.call("client/0", ops.UpdatePod{Type: ops.Kill, Pod: pod("a", 1),
				Kill: ops.KillOptions{GraceOverride: 2, HasGraceOverride: true, CompletionID: 3}}, nil)
			if wait {
				s.call("client/0", ops.KillPodNowDone{UID: "a", ID: 3}, ops.Answer(true))
			}
		})
		return s.verdict()
	}
	wantNone(t, run(true))
	wantViolation(t, run(false), "P1", "no wait for its kill's completion")
}

// TestP5SettleNote: a kubelet's run must settle through the kubelet's
// settle note, or the end checks (P5, P8, L7) never run.
func TestP5SettleNote(t *testing.T) {
	p := plan.Plan{Clients: 1, Node: &plan.Node{}, Actions: []plan.Action{act(plan.Query, "a", 0)}}
	run := func(note bool) []history.Violation {
		s := newScript(p, true)
		s.action(func() {
			for _, q := range queries("a") {
				s.call("client/0", q, ops.Answer(false))
			}
		})
		if note {
			s.note("driver", history.KubeletSettled{})
		}
		s.ev("driver", history.Event{Kind: history.Settled})
		return s.verdict()
	}
	wantNone(t, run(true))
	wantViolation(t, run(false), "P5", "without the kubelet's settle note")
}

// TestP4RestartWithoutAdmission: a restarted kubelet re-adds a pod
// without admitting it again (as if it kept the old process's memory).
func TestP4RestartWithoutAdmission(t *testing.T) {
	p := plan.Plan{Clients: 1, Node: &plan.Node{}, Actions: []plan.Action{act(plan.Create, "a", 0),
		act(plan.Restart, "", time.Second)}}
	s := newScript(p, true)
	s.action(func() { s.admitCreate("a") })
	s.action(func() {
		s.ev("client/0", history.Event{Kind: history.Restarted})
		s.call("client/0", upd(ops.Create, pod("a", 1)), nil)
	})
	wantViolation(t, s.verdict(), "P4", "a was added again without admission")
}

// TestP3SyncKnownAction: a SyncKnown action that never calls
// SyncKnownPods, and one whose call never returns its known pods.
func TestP3SyncKnownAction(t *testing.T) {
	p := plan.Plan{Clients: 1, Actions: []plan.Action{act(plan.SyncKnown, "", 0)}}
	s := newScript(p, false)
	s.action(func() {})
	wantViolation(t, s.verdict(), "P3", "made 0 SyncKnownPods call(s), want 1")

	s = newScript(p, false)
	s.action(func() {
		s.id++
		s.ev("client/0", history.Event{Kind: history.ClientCall, ID: s.id, Input: ops.SyncKnownPods{}})
	})
	got := s.verdict()
	wantViolation(t, got, "P1", "never returned")
	wantViolation(t, got, "P3", "returned no known pods")
}
