package model

import (
	"github.com/podsim/podsim/model/deviation"
	"github.com/podsim/podsim/model/ops"
)

// stepUpdatePod is UpdatePod, SPEC §1.4 step by step (the resulting table is
// §1.5), applied to s in place. There is one outcome, except when a
// terminal-phase pod is first seen and the runtime cache view is unknown:
// then s becomes the first (the pod starts in D) and alt (spare) the second.
func stepUpdatePod(s, spare *State, u *ops.UpdatePod) (alt *State) {
	uid := u.Pod.UID
	// Step 1: a runtime pod alone only counts for a kill; anything else is
	// dropped without creating a record.
	if u.RuntimeOnly && u.Type != ops.Kill {
		s.settleDropped(uid, u.Kill.CompletionID)
		return nil
	}
	if r, known := s.recordToChange(uid); known {
		applyUpdate(s, r, u, false)
		return nil
	}
	// Step 2: first sight. A terminal-phase pod whose runtime cache shows
	// nothing running starts in state D (kubelet restart, §1.13).
	r := Record{UID: uid, FullName: s.fullName(&u.Pod), Static: u.Pod.Static && !u.RuntimeOnly}
	d := r
	d.TermRequested, d.Acknowledged, d.Terminated = true, true, true
	terminal := !u.RuntimeOnly && u.Pod.Phase.Terminal()
	switch {
	case terminal && u.Cache == ops.CacheUnknown: // either
		p := s.forkInto(spare)
		applyUpdate(p, &r, u, true)
		applyUpdate(s, &d, u, true)
		return p
	case terminal && u.Cache == ops.CacheIdle:
		applyUpdate(s, &d, u, true)
	default:
		applyUpdate(s, &r, u, true)
	}
	return nil
}

// applyUpdate is steps 3–10 for record r, on s in place: r is the record
// to change, s's own (recordToChange) or a new one (first), stored with put
// on every path.
func applyUpdate(s *State, r *Record, u *ops.UpdatePod, first bool) {
	content := Delivery{Type: u.Type, Pod: contentOf(&u.Pod), RuntimeOnly: u.RuntimeOnly}
	fromRuntime := u.RuntimeOnly
	// Step 3: a runtime kill marks the UID seen at runtime and becomes a
	// kill of the known pod spec, if any.
	if fromRuntime {
		r.ObservedRuntime = true
		if pod, ok := r.knownRealPod(); ok {
			content.Pod, content.RuntimeOnly = pod, false
		}
	}
	// Step 4: UID reuse — a create while termination is requested only asks
	// for a restart after this incarnation is purged (§1.11).
	if !first && r.TermRequested && u.Type == ops.Create {
		r.RestartRequested = true
		s.put(r)
		s.settleDropped(r.UID, u.Kill.CompletionID)
		return
	}
	// Step 5: a finished pod ignores everything (its kill is complete: the
	// completion fires at once, our fix of §1.17-1).
	if r.Finished {
		s.put(r)
		s.settleDropped(r.UID, u.Kill.CompletionID)
		return
	}
	// Step 6: the transition to termination (sticky from now on, §1.6).
	becameTerminating := !r.TermRequested && requestTermination(r, content.Pod, u.Type, u.Kill, fromRuntime)
	// Step 7: kill options by state.
	shortened := false
	switch {
	case r.Terminated:
		if fromRuntime {
			// A stale runtime kill must not re-drive a terminated pod
			// (#103668); upstream returns before closing its completion.
			s.settleDropped(r.UID, u.Kill.CompletionID)
			s.put(r)
			return
		}
		s.addDueIf(r.UID, u.Kill.CompletionID)
	case r.TermRequested:
		if id := u.Kill.CompletionID; id != 0 {
			s.addNotify(r.UID, id)
		}
		r.Grace, shortened = s.graceOf(r.Grace, content.Pod, u.Kill)
		content.Graced = s.dev.Has(deviation.GC)
	default:
		s.addDueIf(r.UID, u.Kill.CompletionID)
	}
	// Step 8: a new worker joins the static wait list in arrival order.
	if first && r.Static {
		s.joinWaiting(r.UID, r.FullName)
	}
	// Step 9: latest wins.
	r.HasPending, r.Pending = true, content
	s.put(r)
	// Step 10.
	if becameTerminating || shortened {
		s.triggerCancel(r.UID)
	}
}

// settleDropped settles the completion of an update that UpdatePod
// returns early on (steps 1, 4, 5 and a runtime kill of a terminated pod):
// settleCompletion, or, with deviation.G1, never (upstream leaves it open).
func (s *State) settleDropped(uid string, id int) {
	if !s.dev.Has(deviation.G1) {
		s.settleCompletion(uid, id)
	}
}

// requestTermination is step 6: the first matching rule starts termination.
func requestTermination(r *Record, pod PodContent, t ops.UpdateType, kill ops.KillOptions, fromRuntime bool) bool {
	switch {
	case fromRuntime || pod.DeletionTimestamp:
		r.Deleted = true
	case pod.Phase.Terminal():
	case t == ops.Kill:
		r.Evicted = kill.Evict
	default:
		return false
	}
	r.TermRequested = true
	return true
}

// addDueIf makes completion id (if any) due now.
func (s *State) addDueIf(uid string, id int) {
	if id != 0 {
		s.addDue(uid, id)
	}
}

// triggerCancel is SPEC §1.15: termination was first requested or the grace
// was shortened. A pass in progress must see its context cancelled before
// anything else happens under the lock (S3, S11); an idle worker may or may
// not have a context to cancel.
func (s *State) triggerCancel(uid string) {
	r, ok := s.recordRef(uid)
	if !ok || r.Flight.Stage == Idle {
		s.allowCancel(uid)
		return
	}
	if !r.Flight.Canceled {
		canceled := *r
		canceled.Flight.Canceled = true
		s.put(&canceled)
		s.addDue(uid, 0)
	}
}
