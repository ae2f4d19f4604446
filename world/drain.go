package world

import (
	"fmt"
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/sim"
	"github.com/podsim/podsim/workers"
)

// The pod workers' goroutines and the drain after Settled (oracle/liveness
// L10): every worker goroutine is noted as it starts and as it returns
// (history.WorkerStarted, WorkerEnded), and after the end-of-run Shutdown
// the driver waits, within workerDrainBound, until every one has returned,
// then notes what is still running (history.WorkerDrainEnded). A worker
// that never returns is a goroutine leak that no other event shows: the
// scheduler's Close would unwind it silently.

// workerGoroutine is a worker goroutine that has not returned, and what it was last seen doing (for
// the leak's message), named by name and process (each process's pod workers count afresh).
type workerGoroutine struct {
	name    string
	kubelet int
	uid     types.UID
	started int // start order in the run
	doing   string
	what    string // the signal waited on, or the sync call
	since   time.Duration
}

// workerGoroutines follows the live worker goroutines of every kubelet
// process of the run: live holds what a map by name and process would
// (put, remove), found by a scan (at), for a run has a few.
type workerGoroutines struct {
	live    []*workerGoroutine
	started int
	// draining: the drain runs; allEnded fires as the last one returns.
	draining bool
	allEnded *sim.Event
}

// at is the index in live of the goroutine called name of kubelet process
// kubelet, -1 if none.
func (ws *workerGoroutines) at(name string, kubelet int) int {
	for i, g := range ws.live {
		if g.kubelet == kubelet && g.name == name {
			return i
		}
	}
	return -1
}

// put makes g the live goroutine of its name and process, in place of
// one there (a map's assignment).
func (ws *workerGoroutines) put(g *workerGoroutine) {
	if i := ws.at(g.name, g.kubelet); i >= 0 {
		ws.live[i] = g
		return
	}
	ws.live = append(ws.live, g)
}

// remove drops the live goroutine called name of process kubelet, if any
// (a map's delete).
func (ws *workerGoroutines) remove(name string, kubelet int) {
	if i := ws.at(name, kubelet); i >= 0 {
		ws.live = slices.Delete(ws.live, i, i+1)
	}
}

// workerDrainBound is how long the drain waits for the stopped workers.
// Shutdown's contract: a worker returns once its current sync call does,
// and starts no other (its signal is closed, its next pass finds no
// signal and exits). The longest call of the fake runtime is the B16 pull
// (UncancellablePull), then at most one fault-point sleep and one slow
// delay, each ≤ MaxDelay (fakeruntime/faultpoints.go: a point never makes a
// call longer than MaxDelay more than it could be anyway); the rest of a pass
// (the pod lock, the cache read, the status manager's share) takes no
// virtual time. The settle phase's own drain (drainTime) has normally
// ended every call already; one second is the floor of a call's delay.
func workerDrainBound(f plan.Faults) time.Duration {
	return f.UncancellablePull + 2*max(f.MaxDelay, time.Second)
}

// runtimeGo is worldRuntime.Go: the goroutine is noted as it starts and as
// it returns.
func (w *World) runtimeGo(rt workers.Runtime, kubelet int, name string, f func()) {
	uid, _, _ := history.WorkerOf(name)
	g := &workerGoroutine{name: name, kubelet: kubelet, uid: types.UID(uid), started: w.workers.started, doing: "not yet run",
		since: w.S.Elapsed()}
	w.workers.started++
	w.workers.put(g)
	w.noteWorker(history.WorkerStarted{Goroutine: name, UID: g.uid, Kubelet: kubelet})
	rt.Go(name, func() {
		f()
		w.workers.remove(name, kubelet)
		w.noteWorker(history.WorkerEnded{Goroutine: name, UID: g.uid, Kubelet: kubelet})
		if w.workers.draining && len(w.workers.live) == 0 {
			w.workers.allEnded.Fire()
		}
	})
}

// workerDoing records what the calling worker goroutine of kubelet process
// kubelet does now ("waiting on signal", "in", "woken by signal",
// "returned from") and on what.
func (w *World) workerDoing(kubelet int, doing, what string) {
	if i := w.workers.at(w.S.Goroutine(), kubelet); i >= 0 {
		g := w.workers.live[i]
		g.doing, g.what, g.since = doing, what, w.S.Elapsed()
	}
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
	bound, began := workerDrainBound(w.plan.Faults), w.S.Elapsed()
	if len(w.workers.live) > 0 {
		w.workers.draining, w.workers.allEnded = true, w.fixedEvent(&w.fixed.workersEnded, "workers/ended")
		w.workers.allEnded.WaitFor(bound)
	}
	end := history.WorkerDrainEnded{Bound: bound, Waited: w.S.Elapsed() - began}
	stuck := slices.SortedFunc(slices.Values(w.workers.live), func(a, b *workerGoroutine) int { return a.started - b.started })
	for _, g := range stuck {
		doing := g.doing
		if g.what != "" {
			doing += " " + g.what
		}
		end.Stuck = append(end.Stuck, history.StuckWorker{Goroutine: g.name, Kubelet: g.kubelet,
			Waiting: fmt.Sprintf("%s since %v", doing, g.since)})
	}
	w.noteWorker(end)
}

// noteWorker sends a worker-goroutine note, also after Settled (the drain's
// notes are the only events sent then).
func (w *World) noteWorker(n history.Note) {
	if len(w.observers) > 0 {
		w.deliver(&history.Event{Kind: history.Noted, Note: n})
	}
}

// watchedSignal is a pod worker's wake-up signal: its waits are recorded
// as what the waiting worker last did.
type watchedSignal struct {
	sim.Signal
	w       *World
	name    string
	kubelet int
}

func (s *watchedSignal) Wait() bool {
	s.w.workerDoing(s.kubelet, "waiting on signal", s.name)
	ok := s.Signal.Wait()
	s.w.workerDoing(s.kubelet, "woken by signal", s.name)
	return ok
}
