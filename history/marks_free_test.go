package history

import "testing"

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
