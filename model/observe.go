package model

import (
	"slices"

	"github.com/podsim/podsim/model/ops"
)

// answer is SPEC §1.14: the query methods as functions of the state.
func answer(s *State, q ops.Query) bool {
	if q.Kind == ops.IsPodForMirrorPodTerminatingByFullName {
		uid, ok := s.startedStatic(q.FullName)
		r, known := s.recordRef(uid)
		return ok && known && r.TermRequested && !r.Terminated
	}
	r, known := s.recordRef(q.UID)
	if !known {
		// Unknown UID (U0/U1, S10): before the first SyncKnownPods anything
		// may be running; afterwards nothing is.
		switch q.Kind {
		case ops.IsPodKnownTerminated, ops.IsPodTerminationRequested:
			return false
		case ops.CouldHaveRunningContainers:
			return !s.PodsSynced
		}
		return s.PodsSynced
	}
	switch q.Kind {
	case ops.IsPodKnownTerminated, ops.ShouldPodRuntimeBeRemoved:
		return r.Terminated
	case ops.CouldHaveRunningContainers:
		return !r.Terminated
	case ops.ShouldPodBeFinished:
		return r.Finished
	case ops.IsPodTerminationRequested:
		return r.TermRequested
	case ops.ShouldPodContainersBeTerminating:
		return r.Acknowledged
	}
	return r.Evicted || (r.Deleted && r.Terminated) // ShouldPodContentBeRemoved
}

// Answer is what query q returns in s (SPEC §1.14): for tools and for
// generators of legal histories (model/check's tests).
func (s State) Answer(q ops.Query) ops.Answer { return ops.Answer(answer(&s, q)) }

func stepQuery(s *State, q ops.Query, got ops.Answer) error {
	if want := answer(s, q); bool(got) != want {
		subject, state := q.UID, "unknown"
		if q.Kind == ops.IsPodForMirrorPodTerminatingByFullName {
			started, _ := s.startedStatic(q.FullName)
			subject, state = q.FullName, "started "+started
		} else if r, ok := s.record(q.UID); ok {
			state = "state " + r.StateName()
		}
		return rejectf("%s(%s) = %v, want %v (%s)", q.Kind, subject, got, want, state)
	}
	return nil
}

// stepCompletionFired: a completion may fire only when due (S14): after the
// pod terminated, or at once if the kill could not apply; and only once.
func stepCompletionFired(s *State, c ops.CompletionFired) error {
	o := Obligation(c)
	i, found := slices.BinarySearchFunc(s.Due, o, compareObligation)
	if !found {
		return rejectf("%s: completion #%d fired but is not due (S14)", c.UID, c.ID)
	}
	s.dropDue(i)
	s.addFired(c.ID)
	return nil
}

// stepCancelFired: a cancellation is due when termination was requested or
// the grace shortened during a pass (S3, S11); it may happen for an idle
// worker right after such a step; never otherwise.
func stepCancelFired(s *State, c ops.CancelFired) error {
	o := Obligation{UID: c.UID}
	if i, found := slices.BinarySearchFunc(s.Due, o, compareObligation); found {
		s.dropDue(i)
		return nil
	}
	if i, found := slices.BinarySearch(s.MayCancel, c.UID); found {
		s.dropMayCancel(i)
		return nil
	}
	return rejectf("%s: sync context cancelled without a termination request or shorter grace", c.UID)
}

// stepKillPodNowDone: killPodNow reports completion iff its completion fired.
func stepKillPodNowDone(s *State, k ops.KillPodNowDone, completed ops.Answer) error {
	_, fired := slices.BinarySearch(s.Fired, k.ID)
	if bool(completed) != fired {
		return rejectf("%s: killPodNow #%d returned completed=%v but the completion fired=%v", k.UID, k.ID, completed, fired)
	}
	return nil
}
