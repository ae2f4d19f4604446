package liveness

import (
	"testing"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/model/ops"
)

// TestLastOpenIsTheMap: openOf, which answers a lookup of the goroutine
// looked up last without the map, answers as the map does: a goroutine
// found to have no record, then given one (clientCall), has it; another
// goroutine's lookup in between changes nothing; and after Reset no
// record of the run before is found. It fails when newOpen leaves the
// memo as it was (the record is missed) and when Reset keeps it.
func TestLastOpenIsTheMap(t *testing.T) {
	l := newLiveness(Periods{})
	want := func(g string, in ops.Input) {
		t.Helper()
		var byMap *openCall
		if i, ok := l.open[g]; ok {
			byMap = &l.calls[i]
		}
		if got := l.openOf(g); got != byMap {
			t.Fatalf("openOf(%q) = %p, the map's record is %p", g, got, byMap)
		}
		if got := l.callOf(g); got != in {
			t.Fatalf("callOf(%q) = %v, want %v", g, got, in)
		}
	}
	q := ops.Query{Kind: ops.IsPodTerminationRequested, UID: "a"}
	want("client/a", nil)
	l.clientCall(&history.Event{Kind: history.ClientCall, Goroutine: "client/a", Input: q})
	want("client/a", q)
	want("worker/a#1", nil)
	want("client/a", q)
	l.Reset()
	want("client/a", nil)
}
