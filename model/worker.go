package model

import (
	"fmt"

	"github.com/podsim/podsim/model/deviation"
	"github.com/podsim/podsim/model/ops"
)

// The worker loop of SPEC §1.8. Only the callbacks' entry (SyncBegin) and
// return (SyncEnd) are recorded; the critical sections around them are
// hidden steps the model applies nondeterministically (see Closure):
//
//	take      startPodSync: consume the pending update, decide the work type
//	          from the record, start the pod if allowed (or clean it up)
//	ack       acknowledgeTerminating before a terminating callback
//	complete  apply the callback's outcome (completeSync/Terminating/...),
//	          or end the pass whose status read failed (StatusReadFailed,
//	          recorded: the only way a take is not followed by its call)

// hiddenSteps appends to dst every state one unrecorded worker step away
// from s. None happens while an obligation is due: the implementation
// discharges it inside the critical section that created it.
func hiddenSteps(dst []State, s State) []State {
	if len(s.Due) > 0 {
		return dst
	}
	from := len(dst)
	for _, r := range s.records() {
		n := s.clone()
		var spare State
		if alt, stepped := workerSteps(&n, &spare, &r); stepped {
			dst = append(dst, n)
			if alt != nil {
				dst = append(dst, *alt)
			}
		}
	}
	for i := from; i < len(dst); i++ {
		dst[i].MayCancel = nil // a later critical section closes the window
	}
	return dst
}

// workerSteps applies to s, in place, one critical section of r's worker:
// take the pending update when idle, acknowledge a terminating pass after
// its take, apply a returned outcome. stepped is false, and s unchanged, if
// the worker has nothing to do (idle with nothing it may take, a taken pass
// that is not terminating or already acknowledged, or inside a callback).
// A worker step has one outcome (alt is always nil): what it does is
// decided by the record and the recorded operations. r is read only
// (recordRef).
func workerSteps(s, _ *State, r *Record) (alt *State, stepped bool) {
	switch r.Flight.Stage {
	case Idle:
		return nil, take(s, r)
	case Taken:
		return nil, acknowledge(s, r)
	case Returned:
		complete(s, r)
		return nil, true
	}
	return nil, false
}

// stepWorkerStep is a recorded WorkerStep (witness mode, see the package
// doc): the worker of the UID ran one critical section now, and it did
// whatever its record enables; when nothing is (idle with nothing to take,
// a taken pass with nothing to acknowledge, inside a callback, no record),
// the section changed nothing the model tracks. The one impossible place is between the
// acknowledgement and the terminating callback's entry: the worker calls it
// right away (SPEC §1.8 step 3).
func stepWorkerStep(s, spare *State, w ops.WorkerStep) (alt *State, err error) {
	r, ok := s.recordRef(w.UID)
	switch {
	case !ok:
	case r.Flight.Stage == Taken && r.Flight.Acked:
		return nil, &lostFork{uid: w.UID, fn: r.Flight.Fn}
	default:
		alt, _ = workerSteps(s, spare, r)
	}
	return alt, nil
}

// take is startPodSync (SPEC §1.8 step 1, allowPodStart §1.10), on s in
// place. It reports false, with s unchanged, when the worker has nothing it
// may take. at is read only (recordRef); once nothing can refuse the take,
// the record is changed in place (recordToChange).
func take(s *State, at *Record) bool {
	if at.Finished || !at.HasPending {
		return false
	}
	work, content := at.workType(), at.Pending
	// allowPodStart reads the pod of the update being taken: a UID first
	// seen as a runtime-only orphan is static once its static pod arrives.
	static := at.Static || (!content.RuntimeOnly && content.Pod.Static)
	start := false // startedAt is set now
	switch {
	case at.Started:
	case work == ops.TerminatingWork && content.RuntimeOnly:
		// A runtime-only pod terminates without ever being started (§1.9).
	case !static:
		start = true
	case at.TermRequested:
		// A static pod asked to terminate before it started can never
		// start: cleanupUnstartedPod, no sync call at all.
		cleanupUnstarted(s, *at)
		return true
	default:
		allowed, trimmed := s.staticStart(*at)
		if !allowed {
			// Cannot start yet: the update stays pending (#116995); the
			// refusal may have trimmed skipped waiters off the list.
			return trimmed
		}
		start = true
		s.setStartedStatic(at.FullName, at.UID)
	}
	r, _ := s.recordToChange(at.UID)
	r.Started = r.Started || start
	r.HasPending = false
	r.mergeActive(content)
	r.Flight = Flight{Stage: Taken, Fn: syncFnFor(work, content), Content: content, TakeGrace: r.Grace}
	return true
}

// syncFnFor is the dispatch of SPEC §1.8 step 3.
func syncFnFor(work ops.WorkType, content Delivery) ops.SyncFn {
	switch {
	case work == ops.SyncWork:
		return ops.SyncPod
	case work == ops.TerminatedWork:
		return ops.SyncTerminatedPod
	case content.RuntimeOnly:
		return ops.SyncTerminatingRuntimePod
	}
	return ops.SyncTerminatingPod
}

// staticStart is allowStaticPodStart with its lazy pruning (SPEC §1.10):
// if a UID is started for the full name, only it may start. Else the wait
// list is scanned in arrival order, skipping entries with no record, with
// termination requested or terminated (#107900); if the first valid entry
// is another UID, the skipped prefix is trimmed and r is refused; if it is
// r, everything up to and including it leaves the list. Entries are never
// removed on purge, so a purged and re-created UID may keep its old place
// (upstream behaviour, kept on purpose). trimmed reports that a refusal
// changed the list.
func (s *State) staticStart(r Record) (allowed, trimmed bool) {
	if started, ok := s.startedStatic(r.FullName); ok {
		return started == r.UID, false
	}
	waiting := s.waitingStatic(r.FullName)
	for i, uid := range waiting {
		w, ok := s.record(uid)
		if !ok || w.TermRequested || w.Terminated {
			continue
		}
		if uid != r.UID {
			if i > 0 {
				s.dropWaiting(r.FullName, i)
			}
			return false, i > 0
		}
		s.dropWaiting(r.FullName, i+1)
		return true, false
	}
	return true, false
}

// cleanupUnstarted is cleanupUnstartedPod, fixed per §1.17-2/3: the pod is
// terminated and finished with no sync call, acknowledges termination (so
// ContainersBeTerminating agrees with RuntimeBeRemoved) and fires every
// waiting completion. The consumed update is dropped (HasConfig=false).
//
// deviation.G3 leaves the acknowledgement as it was (a runtime-only pass may
// have made it); deviation.G2 leaves the waiting completions open for good.
func cleanupUnstarted(s *State, r Record) {
	r.Acknowledged = r.Acknowledged || !s.dev.Has(deviation.G3)
	r.Terminated, r.Finished = true, true
	r.HasPending = false
	s.put(&r)
	s.finishCompletions(r.UID)
	s.leaveStatic(r.UID, r.FullName)
}

// finishCompletions fires every completion waiting on uid (fireAll), or,
// with deviation.G2, forgets them unfired (on the paths deviation.G2 names).
func (s *State) finishCompletions(uid string) {
	if s.dev.Has(deviation.G2) {
		s.dropNotify(uid)
		return
	}
	s.fireAll(uid)
}

// acknowledge: after the take of a terminating pass (and its status read,
// which did not fail: a failure is recorded, StatusReadFailed), the worker
// acknowledges termination before the callback. It reports false, s
// unchanged, for any other taken pass. r is read only (recordRef).
func acknowledge(s *State, r *Record) bool {
	if r.Flight.Acked || (r.Flight.Fn != ops.SyncTerminatingPod && r.Flight.Fn != ops.SyncTerminatingRuntimePod) {
		return false
	}
	acked := *r
	acked.Acknowledged, acked.Flight.Acked, acked.Flight.AckGrace = true, true, r.Grace
	s.put(&acked)
	return true
}

// stepStatusReadFailed: the worker's runtime status read after a take
// failed (SPEC §1.8 step 2; never for a runtime-only pod, which reads no
// status, and always before the acknowledgement, which follows the read).
// The pass ends like a failed call: the next critical section of the
// worker applies it (complete), changing nothing but the flight.
func stepStatusReadFailed(s *State, in ops.StatusReadFailed) error {
	r, ok := s.recordRef(in.UID)
	switch {
	case !ok:
		return rejectf("%s: a status read failed but the pod is unknown", in.UID)
	case r.Flight.Stage != Taken || r.Flight.Acked:
		return rejectf("%s: a status read failed but no update was just taken (%s, stage %s)", in.UID, r.StateName(), r.Flight.Stage)
	case r.Flight.Content.RuntimeOnly:
		return rejectf("%s: a status read failed for a runtime-only pass, which reads no status", in.UID)
	}
	r, _ = s.recordToChange(in.UID)
	r.Flight.Stage, r.Flight.Outcome = Returned, ops.Failed
	return nil
}

// complete applies a returned callback's outcome (SPEC §1.8 step 4). Errors
// and cancellations change nothing: the retry needs a new update (work
// queue) or a replay (SyncKnownPods). s is updated in place, and so is the
// record (recordToChange; at is read only).
func complete(s *State, at *Record) {
	r, _ := s.recordToChange(at.UID)
	f := r.Flight
	r.Flight = Flight{}
	if f.Outcome != ops.OK {
		return
	}
	switch f.Fn {
	case ops.SyncPod:
		if f.IsTerminal {
			// completeSync: natural completion starts termination. SPEC
			// leaves its grace open; S11 wants one ≥1: that of the newest
			// known spec (deletion grace, else spec grace).
			// deviation.GC: upstream records none.
			if !r.TermRequested {
				newest, _ := r.knownRealPod()
				r.TermRequested = true
				if !s.dev.Has(deviation.GC) {
					r.Grace, _ = s.graceOf(0, newest, ops.KillOptions{})
				}
			}
			r.Acknowledged = true
			r.replay()
		}
	case ops.SyncTerminatingPod:
		// completeTerminating: every waiting completion fires.
		r.Terminated = true
		r.replay()
		s.fireAll(r.UID)
	case ops.SyncTerminatingRuntimePod:
		// completeTerminatingRuntimePod: runtime pods keep no history.
		s.finishCompletions(r.UID)
		s.remove(*r)
	case ops.SyncTerminatedPod:
		r.Finished = true
		s.fireAll(r.UID)
		s.leaveStatic(r.UID, r.FullName)
	}
}

// stepSyncBegin checks a callback entry against the taken update.
func stepSyncBegin(s *State, b ops.SyncBegin) error {
	r, ok := s.recordRef(b.UID)
	if !ok {
		return rejectf("%s: %s begins but the pod is unknown", b.UID, b.Fn)
	}
	f := &r.Flight
	switch {
	case f.Stage == Begun:
		return rejectf("%s: %s begins while %s is in flight (S1)", b.UID, b.Fn, f.Fn)
	case f.Stage == Returned:
		return rejectf("%s: %s begins before the return of %s was applied", b.UID, b.Fn, f.Fn)
	case f.Stage == Idle:
		return &lostFork{uid: b.UID, fn: b.Fn, state: r.StateName()}
	case f.Fn != b.Fn:
		return rejectf("%s: %s begins but the work taken is %s (state %s)", b.UID, b.Fn, f.Fn, r.StateName())
	case (b.Fn == ops.SyncTerminatingPod || b.Fn == ops.SyncTerminatingRuntimePod) && !f.Acked:
		return rejectf("%s: %s begins before termination was acknowledged", b.UID, b.Fn)
	case b.Fn != ops.SyncTerminatingRuntimePod && b.Version != f.Content.Pod.Version:
		return rejectf("%s: %s begins with pod v%d, the update taken has v%d", b.UID, b.Fn, b.Version, f.Content.Pod.Version)
	case b.Fn == ops.SyncPod && b.Type != f.Content.Type:
		return rejectf("%s: SyncPod begins with %s, the update taken is %s", b.UID, b.Type, f.Content.Type)
	case b.Fn == ops.SyncTerminatingPod && s.dev.Has(deviation.GC) && !f.Content.Graced:
		if b.Grace != 0 {
			return rejectf("%s: SyncTerminatingPod begins with grace %d, want none (the update taken carries no grace)", b.UID, b.Grace)
		}
	case b.Fn == ops.SyncTerminatingPod && b.Grace != f.TakeGrace && b.Grace != f.AckGrace:
		want := fmt.Sprint(f.AckGrace)
		if f.TakeGrace != f.AckGrace {
			want = fmt.Sprintf("%d (at ack) or %d (at take)", f.AckGrace, f.TakeGrace)
		}
		return rejectf("%s: SyncTerminatingPod begins with grace %d, want %s (S11)", b.UID, b.Grace, want)
	}
	r, _ = s.recordToChange(b.UID)
	r.Flight.Stage = Begun
	return nil
}

// stepSyncEnd records a callback's return; complete applies it later.
func stepSyncEnd(s *State, e ops.SyncEnd) error {
	r, ok := s.recordRef(e.UID)
	if !ok || r.Flight.Stage != Begun || r.Flight.Fn != e.Fn {
		return rejectf("%s: %s returns but it is not in flight", e.UID, e.Fn)
	}
	r, _ = s.recordToChange(e.UID)
	r.Flight.Stage, r.Flight.Outcome, r.Flight.IsTerminal = Returned, e.Outcome, e.IsTerminal && e.Fn == ops.SyncPod
	return nil
}
