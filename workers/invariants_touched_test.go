package workers

import (
	"errors"
	"testing"

	"k8s.io/apimachinery/pkg/types"
)

// touchedWorkers holds two healthy running records, "a" and "b", both
// checked once (the release before the one under test).
func touchedWorkers(t *testing.T) (*PodWorkers, map[types.UID]*podSyncStatus) {
	t.Helper()
	w := newBareWorkers(t, NewRealRuntime(nil, 1))
	records := map[types.UID]*podSyncStatus{}
	for _, uid := range []types.UID{"a", "b"} {
		records[uid] = healthyRecord(w, uid)
		w.records.set(uid, records[uid])
	}
	if err := w.CheckInvariantsLocked(); err != nil {
		t.Fatalf("healthy records: %v", err)
	}
	return w, records
}

// TestCheckInvariantsOfTouched: a broken invariant of a touched record is
// reported as the check of every record reports it, for every invariant.
func TestCheckInvariantsOfTouched(t *testing.T) {
	for _, tt := range invariantBreaks() {
		t.Run(tt.name, func(t *testing.T) {
			w, records := touchedWorkers(t)
			tt.mutate(w, records["a"])
			err := w.CheckInvariantsOfLocked([]types.UID{"a"})
			var inv *InvariantError
			if !errors.As(err, &inv) || inv.Invariant != tt.want {
				t.Fatalf("got %v, want invariant %s", err, tt.want)
			}
			if full := w.CheckInvariantsLocked(); full.Error() != err.Error() {
				t.Errorf("touched check %q, check of every record %q", err, full)
			}
		})
	}
}

// TestCheckInvariantsOfUntouched: a record broken behind the caller's back
// (a change the touched UIDs leave out) is still caught — at once if the
// pod workers are shut down or a static-pod map holds an entry (now, or at
// the last check), else by the next check of every record (a SyncKnownPods
// release, for the world), after which every check is a check of every
// record. The touched check does not see it by itself: the caller vouches
// for the touched UIDs (the world's claim, checked by TestIncrementalProbe).
func TestCheckInvariantsOfUntouched(t *testing.T) {
	breakB := func(_ *PodWorkers, s *podSyncStatus) { s.evicted = true } // evicted-implies-requested
	for _, tc := range []struct {
		name   string
		before func(w *PodWorkers) // between the last check and the break
		caught bool
	}{
		{"untouched and unseen", func(*PodWorkers) {}, false},
		{"shut down", func(w *PodWorkers) { w.stopped = true }, true},
		{"a static pod waiting", func(w *PodWorkers) { w.waitingToStartStaticPodsByFullname["x_ns"] = []types.UID{"x"} }, true},
		{"a static pod started at the last check", func(w *PodWorkers) {
			w.startedStaticPodsByFullname["pod-a_ns"] = "a"
			if err := w.CheckInvariantsLocked(); err != nil {
				t.Fatal(err)
			}
			delete(w.startedStaticPodsByFullname, "pod-a_ns")
		}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, records := touchedWorkers(t)
			tc.before(w)
			breakB(w, records["b"])
			err := w.CheckInvariantsOfLocked([]types.UID{"a"})
			if caught := err != nil; caught != tc.caught {
				t.Fatalf("touched check of a: %v, want caught %v", err, tc.caught)
			}
			full := w.CheckInvariantsLocked()
			var inv *InvariantError
			if !errors.As(full, &inv) || inv.UID != "b" || inv.Invariant != "evicted-implies-requested" {
				t.Fatalf("check of every record: %v, want b's evicted-implies-requested", full)
			}
			// Once a check found an invariant broken, every check sees it.
			if err := w.CheckInvariantsOfLocked(nil); err == nil || err.Error() != full.Error() {
				t.Errorf("touched check after a broken one: %v, want %v", err, full)
			}
		})
	}
}
