package liveness

import (
	"testing"

	"k8s.io/apimachinery/pkg/types"

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
		if i, ok := l.open.Map()[g]; ok {
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

// TestReleaseAgainIsUpdate: a release with the probe of the release before
// and no pod tracked since updates only the pods whose failed call's error
// waits to be cleared; every pod ends as a full update would leave it. It
// fails when the shortcut is taken with a pod tracked since (its answers
// not read), for another probe (stale answers), or past a waiting error.
func TestReleaseAgainIsUpdate(t *testing.T) {
	l := newLiveness(Periods{})
	probe := func(a history.Answers) *history.Probe {
		return &history.Probe{Pods: []history.PodAnswers{{UID: "a", Answers: a}}}
	}
	release := func(p *history.Probe) {
		l.Observe(nil, &history.Event{Kind: history.LockReleasing, Goroutine: "g", Probe: p})
	}
	want := func(step string, uid types.UID, a history.Answers) {
		t.Helper()
		if got := l.pod(uid).cur; got != a {
			t.Fatalf("%s: pod %s answers %+v, want %+v", step, uid, got, a)
		}
	}
	running, finished := history.Answers{Known: true}, history.Answers{Known: true, BeFinished: true}
	l.track("a")
	p := probe(running)
	release(p)
	want("first release", "a", running)
	l.track("b") // named by a call since: not in the probe
	release(p)
	want("the same probe, a pod tracked since", "b", history.UnknownAnswers(false))
	q := probe(finished)
	release(q)
	want("another probe", "a", finished)
	l.pod("a").err = &syncErr{fn: ops.SyncPod, outcome: ops.Failed}
	release(q)
	if l.pod("a").err != nil {
		t.Fatalf("the same probe: pod a's error was not cleared (its pod finished)")
	}
}
