package nearmiss

import (
	"github.com/podsim/podsim/history"
)

// L10's shutdown contract, read as near misses: at Shutdown each worker
// goroutine returns once its current sync call does, and a later UpdatePod
// is dropped, so no worker starts in pod workers already shut down. Two
// windows come close to a worker that never returns:
//
//	liveness/L10/call-after-shutdown/<call>/<workers>
//	    an UpdatePod was called and had not yet taken the pod lock when
//	    the kubelet restarted: it reaches the stopping process's pod
//	    workers after their Shutdown, which must drop it. <workers> is the
//	    call's UID's worker goroutines in that process then: none, or the
//	    newest one's work (idle, or the callback in flight), "two-" before
//	    it when more than one was alive. A worker the call started there
//	    would be the UID's second goroutine of a stopped process, waiting
//	    for a wake-up nobody will send.
//	liveness/L10/second-worker/<same|earlier>/<doing>
//	    a worker goroutine started for a UID whose older worker goroutine
//	    was still alive, of the same kubelet process (a record created
//	    again while the old worker exits) or of an earlier one (the new
//	    process's worker beside the stopped one's). <doing> is what the
//	    older one was doing: idle, or the callback in flight (for an
//	    earlier process's worker, as the restart left it).
//
// The tracker follows the worker goroutines from the notes of their start
// and end (history.WorkerStarted, WorkerEnded), their work from the
// callback events (whose goroutine names the worker), and a call's pod
// lock from LockAcquired: nothing a target does not already tell.

// openCall is an open client call: its kind (callName), its goroutine,
// the UID of an UpdatePod, and whether the goroutine took the pod lock
// since the call.
type openCall struct {
	kind, goroutine, uid string
	locked               bool
}

// aliveWorker is a worker goroutine that has not returned: its kubelet
// process and, for a stopped process's, its work when the process stopped.
type aliveWorker struct {
	goroutine string
	kubelet   int
	frozen    string
}

// stopping is the worker goroutines alive, per UID in the order they
// started, and the callback each worker goroutine of the current process
// runs (by goroutine name; absent between callbacks).
type stopping struct {
	alive map[string][]aliveWorker
	doing map[string]string
}

// locked marks the open calls of goroutine g as past the pod lock.
func (t *Tracker) locked(g string) {
	for id, c := range t.open {
		if c.goroutine == g && !c.locked {
			c.locked = true
			t.open[id] = c
		}
	}
}

// workOf is what worker w does: idle, or the callback in flight.
func (t *Tracker) workOf(w aliveWorker) string {
	if w.kubelet < t.process {
		return w.frozen
	}
	if fn := t.workers.doing[w.goroutine]; fn != "" {
		return fn
	}
	return "idle"
}

// shutdown records the calls the stopping process's pod workers meet after
// their Shutdown, and freezes what its live workers were doing. A target
// that notes no worker goroutine (the real kubelet's harness, which also
// takes the pod lock once for all its calls) cannot name them: no key.
func (t *Tracker) shutdown() {
	if t.workers.alive == nil {
		return
	}
	for _, c := range t.open {
		if c.locked || c.uid == "" {
			continue
		}
		t.sink.Near(L10, "call-after-shutdown/"+c.kind+"/"+t.workersOf(c.uid))
	}
	for uid, ws := range t.workers.alive {
		for i, w := range ws {
			if w.kubelet == t.process {
				ws[i].frozen = t.workOf(w)
			}
		}
		t.workers.alive[uid] = ws
	}
	clear(t.workers.doing)
}

// workersOf names uid's live workers of the current process.
func (t *Tracker) workersOf(uid string) string {
	var newest aliveWorker
	n := 0
	for _, w := range t.workers.alive[uid] {
		if w.kubelet == t.process {
			newest, n = w, n+1
		}
	}
	switch n {
	case 0:
		return "none"
	case 1:
		return t.workOf(newest)
	}
	return "two-" + t.workOf(newest)
}

func (t *Tracker) workerStarted(n history.WorkerStarted) {
	if t.workers.alive == nil {
		t.workers.alive, t.workers.doing = map[string][]aliveWorker{}, map[string]string{}
	}
	uid := string(n.UID)
	ws := t.workers.alive[uid]
	if len(ws) > 0 {
		older, when := ws[0], "same"
		if older.kubelet < n.Kubelet {
			when = "earlier"
		}
		t.sink.Near(L10, "second-worker/"+when+"/"+t.workOf(older))
	}
	t.workers.alive[uid] = append(ws, aliveWorker{goroutine: n.Goroutine, kubelet: n.Kubelet})
}

func (t *Tracker) workerEnded(n history.WorkerEnded) {
	uid := string(n.UID)
	ws := t.workers.alive[uid]
	for i, w := range ws {
		if w.goroutine == n.Goroutine && w.kubelet == n.Kubelet {
			ws = append(ws[:i], ws[i+1:]...)
			break
		}
	}
	if len(ws) == 0 {
		delete(t.workers.alive, uid)
		return
	}
	t.workers.alive[uid] = ws
}

// callbackBegins and callbackEnds follow the work of a worker goroutine
// of the current process.
func (t *Tracker) callbackBegins(g, fn string) {
	if t.workers.doing != nil {
		t.workers.doing[g] = fn
	}
}

func (t *Tracker) callbackEnds(g string) {
	if t.workers.doing != nil {
		delete(t.workers.doing, g)
	}
}
