package liveness

import (
	"reflect"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/model/ops"
	"github.com/podsim/podsim/oracle"
)

// TestTracksFreshAfterReset: liveness reuses the pod tracks of the runs
// before its Reset, each as newPodTrack makes it: one the last run
// dirtied is handed out fresh, and none twice.
func TestTracksFreshAfterReset(t *testing.T) {
	l := newLiveness(Periods{})
	for _, uid := range []types.UID{"a", "b"} {
		p := l.track(uid)
		p.createdAt, p.terminatedOK, p.cur = 5, true, oracle.Answers{Known: true}
		p.calls.called[0] = true
	}
	l.Reset()
	seen := map[*podTrack]bool{}
	for _, uid := range []types.UID{"c", "d", "e"} {
		p := l.track(uid)
		if !reflect.DeepEqual(p, newPodTrack(uid)) || seen[p] {
			t.Fatalf("track of %s: %+v (handed out before: %v), want %+v", uid, *p, seen[p], *newPodTrack(uid))
		}
		seen[p] = true
		p.createdAt = 9
	}
}

// TestFailuresHeldInTheTrack: a failed call's record and a purge for a
// restart are held in the pod's track (errHeld, restartHeld), not
// allocated each time, and the newest is what err and restart show. It
// fails when either is allocated, or when err shows a failure replaced.
func TestFailuresHeldInTheTrack(t *testing.T) {
	l := newLiveness(Periods{})
	p := l.track("a")
	n := 0
	fail := func() {
		n++
		p.end(ops.SyncEnd{UID: "a", Fn: ops.SyncPod, Outcome: ops.Failed}, time.Duration(n))
	}
	if a := testing.AllocsPerRun(10, fail); a != 0 {
		t.Errorf("a failed call allocates %v times, want 0", a)
	}
	if p.err == nil || p.err.at != time.Duration(n) {
		t.Fatalf("err shows %+v, want the failure at %v", p.err, time.Duration(n))
	}
	p.terminatedOK = true // no L1 report to format
	ev := &history.Event{At: 7, Goroutine: "housekeeping"}
	l.known.Set(ev.Goroutine, &knownCall{desired: []string{"a"}})
	purge := func() { l.gone(p, ev, ops.SyncKnownPods{Desired: []string{"a"}}) }
	if a := testing.AllocsPerRun(10, purge); a != 0 {
		t.Errorf("a purge for a restart allocates %v times, want 0", a)
	}
	if p.restart == nil || p.restart.purgedAt != 7 {
		t.Fatalf("restart shows %+v, want the purge at 7", p.restart)
	}
}
