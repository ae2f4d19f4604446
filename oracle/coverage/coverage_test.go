package coverage

import (
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/model/ops"
	"github.com/podsim/podsim/oracle"
)

// fakeView is a target with no kubelet; answers are what the query methods
// return at every release of the pod lock (nil: a target that records no
// answers).
type fakeView struct{ answers map[types.UID]oracle.Answers }

func (fakeView) Settle() *oracle.Settle            { return nil }
func (fakeView) Config(types.UID) oracle.PodConfig { return oracle.PodConfig{} }
func (fakeView) Kubelet() oracle.Kubelet           { return nil }
func (fakeView) Elapsed() time.Duration            { return 0 }

func call(g string, in ops.Input) history.Event {
	return history.Event{Kind: history.ClientCall, Goroutine: g, Input: in}
}

func update(uid string, typ ops.UpdateType, grace int64, static bool) ops.UpdatePod {
	u := ops.UpdatePod{Type: typ, Pod: ops.Pod{UID: uid, Name: "web", Namespace: "default", Static: static, SpecGrace: 30}}
	if grace >= 0 {
		u.Kill = ops.KillOptions{GraceOverride: grace, HasGraceOverride: true}
	}
	return u
}

func begin(uid string, fn ops.SyncFn) history.Event {
	return history.Event{Kind: history.CallbackBegin, Goroutine: "worker/" + uid, Input: ops.SyncBegin{UID: uid, Fn: fn}}
}

func end(uid string, fn ops.SyncFn) history.Event {
	return history.Event{Kind: history.CallbackEnd, Goroutine: "worker/" + uid, Input: ops.SyncEnd{UID: uid, Fn: fn}}
}

func release(g string) history.Event { return history.Event{Kind: history.LockReleasing, Goroutine: g} }

func track(v oracle.View, evs ...history.Event) Coverage {
	tr := New()
	for _, ev := range evs {
		if fv, ok := v.(fakeView); ok && ev.Kind == history.LockReleasing && fv.answers != nil {
			ev.Probe = history.NewProbe(true, fv.answers, nil)
		}
		tr.Observe(v, &ev)
	}
	return tr.Coverage()
}

func has(c Coverage, tuple string) bool { return slices.Contains(c.Tuples, tuple) }

// TestKillDuringSyncPodIsPending: a kill that arrives while SyncPod runs
// shows as the pending kill of a pod in sync; the same kill after SyncPod
// returned does not.
func TestKillDuringSyncPodIsPending(t *testing.T) {
	v := fakeView{answers: map[types.UID]oracle.Answers{"a": {Known: true}}}
	during := track(v, call("client/0", update("a", ops.Create, -1, false)), begin("a", ops.SyncPod),
		call("client/0", update("a", ops.Kill, 5, false)), release("client/0"))
	if want := "S|sync|kill|grace|-|run|kill"; !has(during, want) {
		t.Fatalf("kill during SyncPod: no %q in %v", want, during.Tuples)
	}
	after := track(v, call("client/0", update("a", ops.Create, -1, false)), begin("a", ops.SyncPod),
		end("a", ops.SyncPod), call("client/0", update("a", ops.Kill, 5, false)), release("client/0"))
	for _, tu := range after.Tuples {
		if strings.Contains(tu, "|kill|grace|") && strings.Contains(tu, "|sync|") {
			t.Fatalf("kill after SyncPod shows as pending during a sync: %v", after.Tuples)
		}
	}
	if len(during.Transitions) == 0 {
		t.Fatal("no transitions recorded")
	}
}

// TestShortenedGrace: a second kill with a shorter grace is "short"; one
// with a longer grace is not.
func TestShortenedGrace(t *testing.T) {
	v := fakeView{}
	shorter := track(v, call("c", update("a", ops.Kill, 10, false)), call("c", update("a", ops.Kill, 2, false)))
	longer := track(v, call("c", update("a", ops.Kill, 2, false)), call("c", update("a", ops.Kill, 10, false)))
	if !has(shorter, "?|-|-|short|-|run|kill") {
		t.Fatalf("shortened grace not seen: %v", shorter.Tuples)
	}
	for _, tu := range longer.Tuples {
		if strings.Contains(tu, "short") {
			t.Fatalf("a longer second grace counted as shortened: %v", longer.Tuples)
		}
	}
}

// TestStaticQueue: a second static pod of a full name waits behind the
// started one, and is at the head once that one's SyncTerminatedPod
// returned.
func TestStaticQueue(t *testing.T) {
	c := track(fakeView{}, call("c", update("a", ops.Create, -1, true)), begin("a", ops.SyncPod),
		call("c", update("b", ops.Create, -1, true)), begin("a", ops.SyncTerminatedPod),
		end("a", ops.SyncTerminatedPod), call("c", update("b", ops.Update, -1, true)))
	for _, want := range []string{"?|-|-|-|queued|run|create", "?|-|-|-|head|run|update", "?|sync|-|-|run|run|create"} {
		if !has(c, want) {
			t.Errorf("no %q in %v", want, c.Tuples)
		}
	}
}

// TestWorldPhases: the shutdown and a restart show in the world field; a
// target without Workers leaves the state unknown.
func TestWorldPhases(t *testing.T) {
	c := track(fakeView{}, history.Event{Kind: history.Noted, Note: history.ShutdownBegins{}},
		call("c", update("a", ops.Kill, 0, false)), release("c"),
		history.Event{Kind: history.Restarted}, call("c", update("a", ops.Create, -1, false)))
	for _, want := range []string{"?|-|-|grace0|-|shutdown|kill", "?|-|-|-|-|shutdown+restarted|create"} {
		if !has(c, want) {
			t.Errorf("no %q in %v", want, c.Tuples)
		}
	}
}

// TestCoverageIsSorted: the same events give the same coverage, sorted.
func TestCoverageIsSorted(t *testing.T) {
	evs := []history.Event{call("c", update("b", ops.Create, -1, false)), call("c", update("a", ops.Kill, 3, false)),
		begin("a", ops.SyncTerminatingPod), end("a", ops.SyncTerminatingPod)}
	a, b := track(fakeView{}, evs...), track(fakeView{}, evs...)
	if !slices.IsSorted(a.Tuples) || !slices.Equal(a.Tuples, b.Tuples) || !slices.Equal(a.TransitionKeys(), b.TransitionKeys()) {
		t.Fatalf("coverage not canonical: %v vs %v", a, b)
	}
}
