package coverage

// An UpdatePod in flight when the kubelet restarts that has not yet taken
// the pod lock reaches the stopping process's pod workers after their
// Shutdown, which must drop it (L10: at Shutdown each worker returns once
// its sync call does, and no worker starts afterwards). Pod workers that
// took it would start the UID a second worker goroutine in the stopped
// process, beside the one Shutdown is ending, which nothing would ever
// wake again. The tracker records that window as a near miss of L10 with
// the call's pod's tuple in the stopping process (its work field says what
// the UID's worker was doing: -, sync, term, ...), so the guided loop keeps
// one run per pod state in which a stopped process met a call:
//
//	liveness/L10/call-after-shutdown/<tuple>
//
// Only when the run records near misses (the near-miss tracker asks for
// it, StoppedCalls), and on a target that notes its worker goroutines (the
// simulated kubelet): the real kubelet's harness notes none and takes the
// pod lock once for all its calls, so it cannot say a call is before the
// lock.

// StoppedCalls makes t record the calls after Shutdown as near misses, for
// this run (Reset forgets it). The near-miss tracker calls it on its sink
// (nearmiss.New).
func (t *Tracker) StoppedCalls() { t.stoppedCalls = true }

// openUpdate is an UpdatePod call in flight: its ID, goroutine and pod, and
// whether its goroutine took the pod lock since the call.
type openUpdate struct {
	id             int
	goroutine, uid string
	pastLock       bool
}

// locked marks the calls of goroutine g as past the pod lock.
func (t *Tracker) locked(g string) {
	for i := range t.calls {
		if t.calls[i].goroutine == g {
			t.calls[i].pastLock = true
		}
	}
}

// returned closes the call id, if it is an UpdatePod.
func (t *Tracker) returned(id int) {
	for i := range t.calls {
		if t.calls[i].id == id {
			t.calls = append(t.calls[:i], t.calls[i+1:]...)
			return
		}
	}
}

// shutdown records the calls the stopping process's pod workers meet after
// their Shutdown, and closes every call (a restart cuts their history).
func (t *Tracker) shutdown() {
	for _, c := range t.calls { // none unless StoppedCalls asked (event)
		if c.pastLock || !t.workersNoted {
			continue
		}
		if p := t.pods[c.uid]; p != nil {
			t.buf = t.appendTuple(t.buf[:0], c.uid, p)
			t.rec.Near("liveness/L10", "call-after-shutdown/"+string(t.buf))
		}
	}
	t.calls = t.calls[:0]
}
