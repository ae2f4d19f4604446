package model

import (
	"testing"

	"github.com/podsim/podsim/model/ops"
)

// Found by podsim's own runs (model and workers disagreed; the workers
// follow SPEC §1.10 and upstream): the two static-pod rules below.

// TestStaticReuseKeepsOldWaitPosition: a static UID purged while waiting
// and re-created keeps its old place in the wait list, ahead of a waiter
// that arrived in between (lazy pruning, §1.10).
func TestStaticReuseKeepsOldWaitPosition(t *testing.T) {
	s := NewState()
	for _, uid := range []string{"b", "c"} {
		s.joinWaiting(uid, "web_ns")
		s.put(&Record{UID: uid, FullName: "web_ns", Static: true})
	}
	// b is purged (its record goes, its entry stays), then re-created and
	// queued again behind c.
	s.deleteRecord("b")
	s.put(&Record{UID: "b", FullName: "web_ns", Static: true})
	s.joinWaiting("b", "web_ns")
	cases := []struct {
		uid  string
		want bool
	}{{"c", false}, {"b", true}}
	for _, c := range cases {
		st := s
		if got, _ := st.staticStart(Record{UID: c.uid, FullName: "web_ns", Static: true}); got != c.want {
			t.Errorf("%s may start: got %v, want %v", c.uid, got, c.want)
		}
	}
}

// TestStaticFromTheTakenUpdate: a UID first seen runtime-only is static
// once its static pod arrives; asked to terminate before it started, it is
// cleaned up unstarted with no sync call (§1.8 step 1, §1.10).
func TestStaticFromTheTakenUpdate(t *testing.T) {
	r := Record{UID: "a", FullName: "web_ns", TermRequested: true, HasPending: true,
		Pending: Delivery{Type: ops.Update, Pod: PodContent{Version: 1, Static: true}}}
	s := NewState()
	s.put(&r)
	if !take(&s, &r) {
		t.Fatal("take refused")
	}
	got, _ := s.record("a")
	if !got.Finished || got.Flight.Stage != 0 {
		t.Fatalf("got %+v, want finished by unstarted cleanup with no call in flight", got)
	}
}
