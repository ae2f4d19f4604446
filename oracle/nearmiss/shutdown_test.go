package nearmiss

import (
	"testing"

	k8stypes "k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/model/ops"
)

func workerStarted(g, uid string, kubelet int) history.Event {
	return note(history.WorkerStarted{Goroutine: g, UID: k8stypes.UID(uid), Kubelet: kubelet})
}

func workerEnded(g, uid string, kubelet int) history.Event {
	return note(history.WorkerEnded{Goroutine: g, UID: k8stypes.UID(uid), Kubelet: kubelet})
}

func acquired(g string) history.Event { return history.Event{Kind: history.LockAcquired, Goroutine: g} }

// TestCallAfterShutdown: an UpdatePod called and not yet past the pod lock
// when the kubelet restarts reaches the stopped pod workers: a near miss of
// L10, by the call and its UID's live workers in the stopping process (none,
// idle, the callback in flight, two); a call past the lock, a query, a
// call after the restart, or any call on a target that notes no worker
// goroutines (the real kubelet's harness) is none.
func TestCallAfterShutdown(t *testing.T) {
	kill := call(1, "client/0", ops.UpdatePod{Type: ops.Kill, Pod: ops.Pod{UID: "a"}})
	const open = "liveness/L10/open-at-restart/UpdatePod-kill"
	key := func(workers string) string { return "liveness/L10/call-after-shutdown/UpdatePod-kill/" + workers }
	w := workerStarted("worker/a", "a", 0)
	expect(t, "idle worker", track(w, kill, restarted), key("idle"), open)
	expect(t, "another goroutine took the lock", track(w, kill, acquired("worker/a"), restarted), key("idle"), open)
	expect(t, "worker in a callback", track(w, begin("a", ops.SyncTerminatingPod), kill, restarted),
		key("SyncTerminatingPod"), open)
	expect(t, "callback ended", track(w, begin("a", ops.SyncPod), end("a", ops.SyncPod, ops.OK, false), kill, restarted),
		key("idle"), open)
	expect(t, "worker ended", track(w, workerEnded("worker/a", "a", 0), kill, restarted), key("none"), open)
	expect(t, "another pod's worker", track(workerStarted("worker/b", "b", 0), kill, restarted), key("none"), open)
	expect(t, "two workers", track(w, workerStarted("worker/a#2", "a", 0), kill, restarted), key("two-idle"), open,
		"liveness/L10/second-worker/same/idle")

	expect(t, "past the lock", track(w, kill, acquired("client/0"), restarted), open)
	expect(t, "returned", track(w, kill, acquired("client/0"), ret(1, 0, nil), restarted))
	expect(t, "a query", track(w, ask(1, "a", ops.IsPodKnownTerminated), restarted), "liveness/L10/open-at-restart/Query")
	expect(t, "after the restart", track(w, restarted, kill))
	expect(t, "a target that notes no worker goroutine", track(kill, restarted), open)
}

// TestSecondWorker: a worker goroutine started for a UID whose older worker
// goroutine is alive is a near miss of L10, by the older one's process
// (the same or an earlier one) and what it does; after the older one
// returned, or for another UID, it is none.
func TestSecondWorker(t *testing.T) {
	key := func(when, doing string) string { return "liveness/L10/second-worker/" + when + "/" + doing }
	a0, a2 := workerStarted("worker/a", "a", 0), workerStarted("worker/a#2", "a", 0)
	expect(t, "same process", track(a0, a2), key("same", "idle"))
	expect(t, "same process, older in a callback", track(a0, begin("a", ops.SyncTerminatedPod), a2),
		key("same", "SyncTerminatedPod"))
	expect(t, "earlier process, as the restart left it", track(a0, begin("a", ops.SyncPod), restarted,
		workerStarted("worker/a", "a", 1)), key("earlier", "SyncPod"))
	expect(t, "earlier process, idle", track(a0, restarted, workerStarted("worker/a", "a", 1)), key("earlier", "idle"))

	expect(t, "older returned", track(a0, workerEnded("worker/a", "a", 0), a2))
	expect(t, "older of the earlier process returned", track(a0, restarted, workerEnded("worker/a", "a", 0),
		workerStarted("worker/a", "a", 1)))
	expect(t, "another UID", track(a0, workerStarted("worker/b", "b", 0)))
}

// askingSink is a sink that can record the calls after Shutdown by tuple.
type askingSink struct {
	keys
	asked bool
}

func (s *askingSink) StoppedCalls() { s.asked = true }

// TestNewAsksForStoppedCalls: New asks a sink that records the calls after
// Shutdown by the pod's tuple (the coverage tracker) to do so.
func TestNewAsksForStoppedCalls(t *testing.T) {
	var s askingSink
	New(&s)
	if !s.asked {
		t.Error("New did not ask its sink for the calls after Shutdown")
	}
}
