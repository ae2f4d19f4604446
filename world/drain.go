package world

import (
	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/workers"
	"github.com/podsim/podsim/world/workerset"
)

// The pod workers' goroutines and the drain after Settled (oracle/liveness
// L10): every worker goroutine is noted as it starts and as it returns
// (history.WorkerStarted, WorkerEnded), and after the end-of-run Shutdown
// the driver waits, within workerset.DrainBound, until every one has
// returned, then notes what is still running (history.WorkerDrainEnded). A
// worker that never returns is a goroutine leak that no other event shows:
// the scheduler's Close would unwind it silently (world/workerset).

// runtimeGo is worldRuntime.Go: the goroutine is noted as it starts and as
// it returns.
func (w *World) runtimeGo(rt workers.Runtime, kubelet int, name string, f func()) {
	uid, _, _ := history.WorkerOf(name)
	r := w.workers.Start(name, kubelet, types.UID(plan.SameUID(uid)), w.S.Elapsed(), f)
	w.noteWorker(w.kept.boxes.Worker(name, r.UID, kubelet, false))
	rt.Go(name, r.Body)
}

// workerDoing records what the calling worker goroutine of kubelet process
// kubelet does now ("waiting on signal", "in", "woken by signal",
// "returned from") and on what.
func (w *World) workerDoing(kubelet int, doing, what string) {
	w.workers.Doing(w.S, kubelet, doing, what)
}

// drainWorkers is the driver's work after Settled and the workers'
// Shutdown: it lets the stopped workers run until every worker goroutine
// of the run has returned, or workerDrainBound has passed, and notes the
// end. No other actor works: the clients have returned, the daemons
// stopped before Settled (settle waits for daemonsDone), Shutdown makes
// the pod workers drop every later update and nothing calls them; the
// events the workers' last calls make are not sent (nothing but these
// notes is sent after Settled). Its steps are bounded by the live workers'
// last passes, and by the scheduler's step limit in any case.
func (w *World) drainWorkers() {
	bound, began := workerset.DrainBound(w.plan.Faults), w.S.Elapsed()
	if len(w.workers.Live) > 0 {
		w.workers.Draining, w.workers.AllEnded = true, w.fixedEvent(&w.fixed.workersEnded, "workers/ended")
		w.workers.AllEnded.WaitFor(bound)
	}
	end := history.WorkerDrainEnded{Bound: bound, Waited: w.S.Elapsed() - began, Stuck: w.workers.Stuck()}
	w.noteWorker(w.kept.boxes.DrainEnded(end))
}

// noteWorker sends a worker-goroutine note, also after Settled (the drain's
// notes are the only events sent then).
func (w *World) noteWorker(n history.Note) {
	if len(w.observers) > 0 {
		w.deliver(&history.Event{Kind: history.Noted, Note: n})
	}
}
