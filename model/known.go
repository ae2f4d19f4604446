package model

import (
	"fmt"
	"slices"
	"strings"
)

// stepSyncKnownPods is SPEC §1.12: podsSynced becomes true; finished records
// that are orphans or wait for a restart are purged; unfinished orphans are
// purged if they never started and were never seen at runtime, otherwise
// driven to termination (with cancellation, our fix of §1.17-4); every kept
// record is reported. The observed result must match exactly.
func stepSyncKnownPods(s *State, in SyncKnownPods, got KnownPods) error {
	want := syncKnownPods(s, in.Desired)
	got = slices.Clone(got)
	slices.SortFunc(got, func(a, b KnownPod) int { return strings.Compare(a.UID, b.UID) })
	if !slices.Equal(got, want) {
		return fmt.Errorf("SyncKnownPods returned %s, want %s", describeKnown(got), describeKnown(want))
	}
	return nil
}

// syncKnownPods applies SyncKnownPods to s and returns its result, sorted.
func syncKnownPods(s *State, desired []string) KnownPods {
	s.PodsSynced = true
	isDesired := map[string]bool{}
	for _, uid := range desired {
		isDesired[uid] = true
	}
	var result KnownPods
	for _, uid := range s.uids() {
		r := s.Records[uid]
		orphan := !isDesired[uid]
		if r.RestartRequested || orphan {
			if !removeTerminatedWorker(s, r, orphan) {
				continue
			}
			r = s.Records[uid]
		}
		result = append(result, report(r, orphan))
	}
	return result
}

// removeTerminatedWorker is the per-record part of §1.12 step 2. It reports
// whether the record is kept.
func removeTerminatedWorker(s *State, r Record, orphan bool) bool {
	if r.Finished {
		s.remove(r)
		return false
	}
	if !orphan {
		return true // restart requested, still terminating: wait
	}
	r.Deleted = true
	if !r.Started && !r.ObservedRuntime {
		// Nothing can be running: purge, firing its completions (§1.17-2).
		s.fireAll(r.UID)
		s.remove(r)
		return false
	}
	became := !r.TermRequested
	if became {
		r.TermRequested = true
		r.Grace = 1
		if r.HasActive && !r.Active.RuntimeOnly {
			r.Grace, _ = effectiveGrace(0, r.Active.Pod, KillOptions{})
		}
	}
	r.replay()
	s.put(r)
	if became {
		s.triggerCancel(r.UID)
	}
	return true
}

// report is PodWorkerSync for a kept record: config and static come from the
// last consumed update, or the pending one if nothing was consumed.
func report(r Record, orphan bool) KnownPod {
	k := KnownPod{UID: r.UID, State: r.workType(), Orphan: orphan}
	var d Delivery
	switch {
	case r.HasActive:
		d = r.Active
	case r.HasPending:
		d = r.Pending
	default:
		return k
	}
	k.HasConfig = !d.RuntimeOnly
	k.Static = !d.RuntimeOnly && d.Pod.Static
	return k
}
