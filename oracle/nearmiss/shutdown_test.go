package nearmiss

import (
	"testing"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/model"
)

// TestShutdownBoundary: at a restart every worker goroutine of the process
// that stops is a near miss of L10 by what it was doing (in a callback,
// or waiting), and its return afterwards another; a worker that ended
// before the restart, one of the new process, or a restart with no worker
// gives none, and a stopped worker is counted at its own shutdown only.
func TestShutdownBoundary(t *testing.T) {
	started := func(g string, kubelet int) history.Event {
		return note(history.WorkerStarted{Goroutine: g, UID: "a", Kubelet: kubelet})
	}
	ended := func(g string, kubelet int) history.Event {
		return note(history.WorkerEnded{Goroutine: g, UID: "a", Kubelet: kubelet})
	}
	const (
		liveWaiting = "liveness/L10/live-at-shutdown/waiting"
		liveInSync  = "liveness/L10/live-at-shutdown/in-SyncTerminatingPod"
		endWaiting  = "liveness/L10/ended-after-shutdown/waiting"
		endInSync   = "liveness/L10/ended-after-shutdown/in-SyncTerminatingPod"
	)
	w := "worker/a"
	expect(t, "waiting", track(started(w, 0), restarted), liveWaiting)
	expect(t, "waiting, then returned", track(started(w, 0), restarted, ended(w, 0)), endWaiting, liveWaiting)
	expect(t, "in a callback", track(started(w, 0), begin("a", model.SyncTerminatingPod), restarted, ended(w, 0)),
		endInSync, liveInSync)
	expect(t, "callback over", track(started(w, 0), begin("a", model.SyncTerminatingPod),
		end("a", model.SyncTerminatingPod, model.OK, false), restarted), liveWaiting)

	expect(t, "ended before", track(started(w, 0), ended(w, 0), restarted))
	expect(t, "no worker", track(restarted))
	expect(t, "a new process's worker", track(started(w, 0), restarted, started("worker/a#2", 1),
		begin("a", model.SyncPod), ended("worker/a#2", 1)), liveWaiting)
	expect(t, "another worker's callback", track(started(w, 0), begin("b", model.SyncPod), restarted), liveWaiting)
	expect(t, "stopped once", track(started(w, 0), restarted, restarted, ended(w, 0)), endWaiting, liveWaiting)
}
