package coverage

import "testing"

// TestPodRecordsFreshAfterReset: the Tracker reuses the pod records of
// the runs before its Reset, each as a new one is: one the last run
// dirtied is handed out as pod makes it, and none twice.
func TestPodRecordsFreshAfterReset(t *testing.T) {
	tr := New()
	for _, uid := range []string{"a", "b"} {
		p := tr.pod(uid)
		p.state, p.kill, p.started, p.grace, p.last = "T", "grace", true, 5, 7
	}
	tr.Reset()
	fresh := New().pod("z")
	seen := map[*pod]bool{}
	for _, uid := range []string{"c", "d", "e"} {
		p := tr.pod(uid)
		if *p != *fresh || seen[p] {
			t.Fatalf("record of %s: %+v (handed out before: %v), want %+v", uid, *p, seen[p], *fresh)
		}
		seen[p] = true
		p.state = "S"
	}
}
