package model

import (
	"slices"
	"strings"

	"github.com/podsim/podsim/model/deviation"
	"github.com/podsim/podsim/model/ops"
)

// stepSyncKnownPods is SPEC §1.12: podsSynced becomes true; finished records
// that are orphans or wait for a restart are purged; unfinished orphans are
// purged if they never started and were never seen at runtime, otherwise
// driven to termination (with cancellation, our fix of §1.17-4); every kept
// record is reported. The observed result must match exactly.
func stepSyncKnownPods(s *State, in ops.SyncKnownPods, got ops.KnownPods) error {
	var buf [4]ops.KnownPod // a partition's result fits: no allocation
	want := appendKnownPods(buf[:0], s, in.Desired)
	if !slices.IsSortedFunc(got, compareKnownUID) {
		got = slices.SortedFunc(slices.Values(got), compareKnownUID)
	}
	if !slices.Equal(got, want) {
		return rejectf("SyncKnownPods returned %s, want %s", knownText(got), knownText(slices.Clone(want)))
	}
	return nil
}

// KnownPods is what SyncKnownPods(desired) returns in s, sorted by UID; s
// is not modified. For tools and for generators of legal histories
// (model/check's tests).
func (s State) KnownPods(desired []string) ops.KnownPods {
	c := s.clone()
	return syncKnownPods(&c, desired)
}

// syncKnownPods applies SyncKnownPods to s and returns its result, sorted.
func syncKnownPods(s *State, desired []string) ops.KnownPods { return appendKnownPods(nil, s, desired) }

// appendKnownPods is syncKnownPods appending the result to dst.
func appendKnownPods(result ops.KnownPods, s *State, desired []string) ops.KnownPods {
	s.PodsSynced = true
	// By index, in UID order: a record's step changes only that record, so
	// when it removes it the next one is at i.
	for i := 0; i < len(s.recs); {
		orphan := !slices.Contains(desired, s.recs[i].UID)
		if (s.recs[i].RestartRequested || orphan) && !removeTerminatedWorker(s, &s.recs[i], orphan) {
			continue
		}
		result = append(result, report(&s.recs[i], orphan)) // read in place: a Record is large
		i++
	}
	return result
}

// removeTerminatedWorker is the per-record part of §1.12 step 2. It reports
// whether the record is kept. at is read only (it points into s).
func removeTerminatedWorker(s *State, at *Record, orphan bool) bool {
	if at.Finished {
		s.remove(*at)
		return false
	}
	if !orphan {
		return true // restart requested, still terminating: wait
	}
	r := *at // the record to change
	r.Deleted = true
	if !r.Started && !r.ObservedRuntime {
		// Nothing can be running: purge, firing its completions (§1.17-2;
		// deviation.G2: not).
		s.finishCompletions(r.UID)
		s.remove(r)
		return false
	}
	became := !r.TermRequested
	if became {
		r.TermRequested = true
		r.Grace = 1
		if r.HasActive && !r.Active.RuntimeOnly {
			r.Grace, _ = s.graceOf(0, r.Active.Pod, ops.KillOptions{})
		}
	}
	r.replay()
	s.put(&r)
	if became && !s.dev.Has(deviation.G4) {
		s.triggerCancel(r.UID)
	}
	return true
}

// report is PodWorkerSync for a kept record: config and static come from the
// last consumed update, or the pending one if nothing was consumed.
func report(r *Record, orphan bool) ops.KnownPod {
	k := ops.KnownPod{UID: r.UID, State: r.workType(), Orphan: orphan}
	var d *Delivery
	switch {
	case r.HasActive:
		d = &r.Active
	case r.HasPending:
		d = &r.Pending
	default:
		return k
	}
	k.HasConfig = !d.RuntimeOnly
	k.Static = !d.RuntimeOnly && d.Pod.Static
	return k
}

func compareKnownUID(a, b ops.KnownPod) int { return strings.Compare(a.UID, b.UID) }

// knownText renders a result only when a rejection is read.
type knownText ops.KnownPods

func (k knownText) String() string { return ops.DescribeKnown(ops.KnownPods(k)) }
