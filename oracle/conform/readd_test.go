package conform

import (
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/model/ops"
	"github.com/podsim/podsim/plan"
)

// runReAdd: with a kubelet, pod a is created and admitted, leaves config
// (remove, its kill sent), a node shutdown begins or not, then an update
// of a (kind) asks IsPodTerminationRequested (asks times, each answered
// requested) and sends its UpdatePod or not.
func runReAdd(kind plan.ActionKind, shutdown bool, asks int, requested, sent bool) []history.Violation {
	actions := []plan.Action{act(plan.Create, "a", 0), act(plan.Remove, "a", time.Second), act(kind, "a", 3*time.Second)}
	s := newScript(plan.Plan{Clients: 1, Node: &plan.Node{}, Actions: actions}, true)
	s.action(func() { s.admitCreate("a") })
	s.action(func() {
		s.v.pod(types.UID("a")).InConfig = false
		s.call("client/0", ops.UpdatePod{Type: ops.Kill, Pod: ops.Pod{UID: "a", Name: "pod-a", SpecGrace: 30}}, nil)
	})
	if shutdown {
		s.v.shutdownAt = 2 * time.Second
	}
	s.action(func() {
		if kind == plan.Delete { // the fake kubelet has an API server
			s.note("client/0", history.DeleteRequested{UID: "a", Grace: 0})
		}
		for range asks {
			s.call("client/0", ops.Query{Kind: ops.IsPodTerminationRequested, UID: "a"}, ops.Answer(requested))
		}
		if sent {
			t := map[plan.ActionKind]ops.UpdateType{plan.Update: ops.Update, plan.Sync: ops.Sync, plan.Delete: ops.Update}[kind]
			p := ops.Pod{UID: "a", Name: "pod-a", SpecGrace: 30, Version: 2}
			if kind == plan.Delete { // act's Grace -1: deleted with grace 0
				p.DeletionTimestamp, p.HasDeletionGrace = true, true
			}
			s.call("client/0", ops.UpdatePod{Type: t, Pod: p}, nil)
		}
	})
	return s.verdict()
}

// TestP1ReAddInShutdown: during a node shutdown, an update or sync of a
// pod out of config (or a delete of it) is upstream's ADD, which admission rejects unless the
// pod workers say its termination is requested; so the change asks that
// once and is sent iff the answer is true. A world that sends it when the
// answer is false (the real kubelet's driver drops it: swarm seed 9,056
// started a pod during the shutdown), drops it when true, or does not ask
// is wrong; without a shutdown the change is sent and nothing is asked.
func TestP1ReAddInShutdown(t *testing.T) {
	for _, kind := range []plan.ActionKind{plan.Update, plan.Sync, plan.Delete} {
		wantNone(t, runReAdd(kind, false, 0, false, true))
		wantNone(t, runReAdd(kind, true, 1, false, false))
		wantNone(t, runReAdd(kind, true, 1, true, true))
		wantViolation(t, runReAdd(kind, true, 1, false, true), "P1", "made 1 UpdatePod call(s), want 0")
		wantViolation(t, runReAdd(kind, true, 1, true, false), "P1", "made 0 UpdatePod call(s), want 1")
		wantViolation(t, runReAdd(kind, true, 0, true, true), "P1", "asked IsPodTerminationRequested 0 time(s), want 1")
		wantViolation(t, runReAdd(kind, true, 2, true, true), "P1", "asked IsPodTerminationRequested 2 time(s), want 1")
	}
}
