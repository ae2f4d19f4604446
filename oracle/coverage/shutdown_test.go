package coverage

import (
	"slices"
	"testing"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/model/ops"
)

// stoppedCalls runs evs through a tracker asked for the calls after
// Shutdown (as nearmiss.New asks), or not, and returns its near misses.
func stoppedCalls(ask bool, evs ...history.Event) []string {
	tr := New()
	if ask {
		tr.StoppedCalls()
	}
	for _, ev := range evs {
		tr.Observe(fakeView{}, &ev)
	}
	return tr.Coverage().Near
}

// TestCallAfterShutdown: an UpdatePod in flight, not yet past the pod lock,
// when the kubelet restarts is a near miss of L10 named by its pod's tuple
// then; a call past the lock, returned, begun after the restart, a run that
// did not ask for it, a target that notes no worker goroutines, and a
// tracker Reset since it asked record none.
func TestCallAfterShutdown(t *testing.T) {
	started := history.Event{Kind: history.Noted, Note: history.WorkerStarted{Goroutine: "worker/a", UID: "a"}}
	restarted := history.Event{Kind: history.Restarted}
	kill := call("client/1", update("a", ops.Kill, 2, false))
	kill.ID = 7
	create := call("client/0", update("a", ops.Create, -1, false))
	create.ID = 3
	acquired := func(g string) history.Event { return history.Event{Kind: history.LockAcquired, Goroutine: g} }
	returned := history.Event{Kind: history.ClientReturn, ID: 7}
	const key = "liveness/L10/call-after-shutdown/?|sync|kill|grace|-|run|kill"
	base := []history.Event{create, acquired("client/0"), started, {Kind: history.ClientReturn, ID: 3}, begin("a", ops.SyncPod)}
	with := func(evs ...history.Event) []history.Event { return append(slices.Clone(base), evs...) }
	for _, c := range []struct {
		name string
		ask  bool
		evs  []history.Event
		want []string
	}{
		{"before the lock", true, with(kill, restarted), []string{key}},
		{"another goroutine took the lock", true, with(kill, acquired("worker/a"), restarted), []string{key}},
		{"past the lock", true, with(kill, acquired("client/1"), restarted), nil},
		{"returned", true, with(kill, returned, restarted), nil},
		{"after the restart", true, with(restarted, kill), nil},
		{"at the first restart only", true, with(kill, restarted, restarted), []string{key}},
		{"not asked", false, with(kill, restarted), nil},
		{"no worker goroutine noted", true, []history.Event{create, acquired("client/0"), begin("a", ops.SyncPod), kill, restarted}, nil},
	} {
		if got := stoppedCalls(c.ask, c.evs...); !slices.Equal(got, c.want) {
			t.Errorf("%s: near misses %q, want %q", c.name, got, c.want)
		}
	}
	tr := New()
	tr.StoppedCalls()
	tr.Reset()
	for _, ev := range with(kill, restarted) {
		tr.Observe(fakeView{}, &ev)
	}
	if got := tr.Coverage().Near; len(got) != 0 {
		t.Errorf("after Reset: near misses %q, want none", got)
	}
}
