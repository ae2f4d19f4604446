package history

import (
	"testing"

	"github.com/podsim/podsim/model/ops"
	"github.com/podsim/podsim/plan"
)

// TestMarkerRecordsFreshAfterReset: a Marker reuses the records of the
// runs before its Reset, each emptied: one the last run dirtied is handed
// out as a new record would be, and no record of this run is handed out
// twice.
func TestMarkerRecordsFreshAfterReset(t *testing.T) {
	m := NewMarker()
	for _, uid := range []string{"a", "b", "c"} {
		p := m.pod(uid)
		p.killed, p.synced, p.static = true, true, "x_ns"
	}
	m.Reset()
	seen := map[*markerPod]bool{}
	for _, uid := range []string{"d", "e", "f", "g"} {
		p := m.pod(uid)
		if *p != (markerPod{}) || seen[p] {
			t.Fatalf("record of %s: %+v (handed out before: %v), want a new one", uid, *p, seen[p])
		}
		seen[p] = true
		p.killed = true
	}
	if len(m.freePods) != 0 {
		t.Errorf("%d records left after reusing 3 and making 1", len(m.freePods))
	}
}

// TestMarkerChecksEveryRecordOfTheRun: the checks over every record (here
// SyncKnownPods during a callback) read this run's records, all of them,
// and none of the run before the Reset. It fails when they read a list
// other than the records pod made this run.
func TestMarkerChecksEveryRecordOfTheRun(t *testing.T) {
	m := NewMarker()
	m.pod("old").inFlight = ops.SyncPod
	m.Reset()
	m.syncKnown(ops.SyncKnownPods{}) // before any record of this run
	if m.marks[plan.MarkSyncKnownDuringSync] {
		t.Fatal("a record of the run before the Reset was read")
	}
	for _, uid := range []string{"a", "b", "c"} {
		m.pod(uid)
	}
	m.pod("c").inFlight = ops.SyncPod // the last record made
	m.syncKnown(ops.SyncKnownPods{})
	if !m.marks[plan.MarkSyncKnownDuringSync] {
		t.Fatal("a record of this run was not read")
	}
}
