package model

import "fmt"

// The worker loop of SPEC §1.8. Only the callbacks' entry (SyncBegin) and
// return (SyncEnd) are recorded; the critical sections around them are
// hidden steps the model applies nondeterministically (see Closure):
//
//	take      startPodSync: consume the pending update, decide the work type
//	          from the record, start the pod if allowed (or clean it up)
//	abort     the runtime status could not be read: the pass ends as an error
//	ack       acknowledgeTerminating before a terminating callback
//	complete  apply the callback's outcome (completeSync/Terminating/...)

// hiddenSteps returns every state one unrecorded worker step away from s.
// None happens while an obligation is due: the implementation discharges it
// inside the critical section that created it.
func hiddenSteps(s State) []State {
	if len(s.Due) > 0 {
		return nil
	}
	var out []State
	for _, uid := range s.uids() {
		r := s.Records[uid]
		switch r.Flight.Stage {
		case Idle:
			if n, ok := take(s.clone(), r); ok {
				out = append(out, n)
			}
		case Taken:
			out = append(out, abortOrAck(s, r)...)
		case Returned:
			out = append(out, complete(s.clone(), r))
		}
	}
	for i := range out {
		out[i].MayCancel = nil // a later critical section closes the window
	}
	return out
}

// take is startPodSync (SPEC §1.8 step 1, allowPodStart §1.10).
func take(s State, r Record) (State, bool) {
	if r.Finished || !r.HasPending {
		return s, false
	}
	work, content := r.workType(), r.Pending
	switch {
	case r.Started:
	case work == TerminatingWork && content.RuntimeOnly:
		// A runtime-only pod terminates without ever being started (§1.9).
	case !r.Static:
		r.Started = true
	case r.TermRequested:
		// A static pod asked to terminate before it started can never
		// start: cleanupUnstartedPod, no sync call at all.
		return cleanupUnstarted(s, r), true
	case !s.staticMayStart(r):
		// Cannot start yet: the update stays pending (#116995).
		return s, false
	default:
		r.Started = true
		s.StartedStatic[r.FullName] = r.UID
		s.leaveWaiting(r.UID, r.FullName)
	}
	r.HasPending = false
	r.mergeActive(content)
	r.Flight = Flight{Stage: Taken, Fn: syncFnFor(work, content), Content: content, TakeGrace: r.Grace}
	s.put(r)
	return s, true
}

// syncFnFor is the dispatch of SPEC §1.8 step 3.
func syncFnFor(work WorkType, content Delivery) SyncFn {
	switch {
	case work == SyncWork:
		return SyncPod
	case work == TerminatedWork:
		return SyncTerminatedPod
	case content.RuntimeOnly:
		return SyncTerminatingRuntimePod
	}
	return SyncTerminatingPod
}

// staticMayStart is allowStaticPodStart: the started UID of the full name,
// or else the first eligible waiter in arrival order (S15). Waiters asked to
// terminate are skipped (#107900).
func (s State) staticMayStart(r Record) bool {
	if started, ok := s.StartedStatic[r.FullName]; ok {
		return started == r.UID
	}
	for _, uid := range s.WaitingStatic[r.FullName] {
		w, ok := s.Records[uid]
		if ok && !w.TermRequested && !w.Terminated {
			return uid == r.UID
		}
	}
	return true
}

// cleanupUnstarted is cleanupUnstartedPod, fixed per §1.17-2/3: the pod is
// terminated and finished with no sync call, acknowledges termination (so
// ContainersBeTerminating agrees with RuntimeBeRemoved) and fires every
// waiting completion. The consumed update is dropped (HasConfig=false).
func cleanupUnstarted(s State, r Record) State {
	r.Acknowledged, r.Terminated, r.Finished = true, true, true
	r.HasPending = false
	s.put(r)
	s.fireAll(r.UID)
	s.leaveStatic(r.UID, r.FullName)
	return s
}

// abortOrAck: after take, the worker reads the runtime status (not for a
// runtime-only pod; failure ends the pass like a sync error), then a
// terminating pass acknowledges. Both are optional branches of the closure.
func abortOrAck(s State, r Record) []State {
	var out []State
	if !r.Flight.Acked && !r.Flight.Content.RuntimeOnly {
		a := s.clone()
		ar := r
		ar.Flight = Flight{}
		a.put(ar)
		out = append(out, a)
	}
	if !r.Flight.Acked && (r.Flight.Fn == SyncTerminatingPod || r.Flight.Fn == SyncTerminatingRuntimePod) {
		a := s.clone()
		ar := r
		ar.Acknowledged, ar.Flight.Acked, ar.Flight.AckGrace = true, true, r.Grace
		a.put(ar)
		out = append(out, a)
	}
	return out
}

// complete applies a returned callback's outcome (SPEC §1.8 step 4). Errors
// and cancellations change nothing: the retry needs a new update (work
// queue) or a replay (SyncKnownPods).
func complete(s State, r Record) State {
	f := r.Flight
	r.Flight = Flight{}
	s.put(r)
	if f.Outcome != OK {
		return s
	}
	switch f.Fn {
	case SyncPod:
		if f.IsTerminal {
			// completeSync: natural completion starts termination. SPEC
			// leaves its grace open; S11 wants one ≥1: that of the newest
			// known spec (deletion grace, else spec grace).
			if !r.TermRequested {
				newest, _ := r.knownRealPod()
				r.TermRequested = true
				r.Grace, _ = effectiveGrace(0, newest, KillOptions{})
			}
			r.Acknowledged = true
			r.replay()
		}
	case SyncTerminatingPod:
		// completeTerminating: every waiting completion fires.
		r.Terminated = true
		r.replay()
		s.fireAll(r.UID)
	case SyncTerminatingRuntimePod:
		// completeTerminatingRuntimePod: runtime pods keep no history.
		s.fireAll(r.UID)
		s.remove(r)
		return s
	case SyncTerminatedPod:
		r.Finished = true
		s.fireAll(r.UID)
		s.leaveStatic(r.UID, r.FullName)
	}
	s.put(r)
	return s
}

// stepSyncBegin checks a callback entry against the taken update.
func stepSyncBegin(s *State, b SyncBegin) error {
	r, ok := s.Records[b.UID]
	if !ok {
		return fmt.Errorf("%s: %s begins but the pod is unknown", b.UID, b.Fn)
	}
	f := r.Flight
	switch {
	case f.Stage == Begun:
		return fmt.Errorf("%s: %s begins while %s is in flight (S1)", b.UID, b.Fn, f.Fn)
	case f.Stage == Returned:
		return fmt.Errorf("%s: %s begins before the return of %s was applied", b.UID, b.Fn, f.Fn)
	case f.Stage == Idle:
		return fmt.Errorf("%s: %s begins but no update was taken (state %s)", b.UID, b.Fn, r.StateName())
	case f.Fn != b.Fn:
		return fmt.Errorf("%s: %s begins but the work taken is %s (state %s)", b.UID, b.Fn, f.Fn, r.StateName())
	case (b.Fn == SyncTerminatingPod || b.Fn == SyncTerminatingRuntimePod) && !f.Acked:
		return fmt.Errorf("%s: %s begins before termination was acknowledged", b.UID, b.Fn)
	case b.Fn != SyncTerminatingRuntimePod && b.Version != f.Content.Pod.Version:
		return fmt.Errorf("%s: %s begins with pod v%d, the update taken has v%d", b.UID, b.Fn, b.Version, f.Content.Pod.Version)
	case b.Fn == SyncPod && b.Type != f.Content.Type:
		return fmt.Errorf("%s: SyncPod begins with %s, the update taken is %s", b.UID, b.Type, f.Content.Type)
	case b.Fn == SyncTerminatingPod && b.Grace != f.TakeGrace && b.Grace != f.AckGrace:
		want := fmt.Sprint(f.AckGrace)
		if f.TakeGrace != f.AckGrace {
			want = fmt.Sprintf("%d (at ack) or %d (at take)", f.AckGrace, f.TakeGrace)
		}
		return fmt.Errorf("%s: SyncTerminatingPod begins with grace %d, want %s (S11)", b.UID, b.Grace, want)
	}
	r.Flight.Stage = Begun
	s.put(r)
	return nil
}

// stepSyncEnd records a callback's return; complete applies it later.
func stepSyncEnd(s *State, e SyncEnd) error {
	r, ok := s.Records[e.UID]
	if !ok || r.Flight.Stage != Begun || r.Flight.Fn != e.Fn {
		return fmt.Errorf("%s: %s returns but it is not in flight", e.UID, e.Fn)
	}
	r.Flight.Stage, r.Flight.Outcome, r.Flight.IsTerminal = Returned, e.Outcome, e.IsTerminal && e.Fn == SyncPod
	s.put(r)
	return nil
}
