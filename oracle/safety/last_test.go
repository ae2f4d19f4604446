package safety

import (
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/history"
)

// TestTrackedIsTheMap: track, which answers a lookup of the UID it
// returned last without the map, returns the map's record, a new UID's
// new record, and after a Reset no record of the run before. It fails
// when Reset keeps tracked (the old record, emptied and reused or not,
// is handed out as the new run's before it is in the map).
func TestTrackedIsTheMap(t *testing.T) {
	o := newSafetyOracle()
	for _, uid := range []string{"a", "a", "b", "a", "b", "b"} {
		if got, want := o.track(uid), o.pods.Map()[uid]; got != want || got.uid != uid {
			t.Fatalf("track(%q) = %p (uid %q), the map's record is %p", uid, got, got.uid, want)
		}
	}
	o.track("a").lingering = 7
	o.Reset()
	if got, want := o.track("a"), o.pods.Map()["a"]; got != want || got.lingering != 0 {
		t.Fatalf("after Reset: track(a) = %p (lingering %d), the map's record is %p, want it fresh", got, got.lingering, want)
	}
}

// TestKnownAgainIsTheProbes: knownUIDs keeps the last probe's list and
// answers from it (again) only for that same probe: a new probe with the
// same answers is listed afresh, and after a Reset nothing is kept. It
// fails when again is answered for another probe or after a Reset (the
// release then tracks no new UID).
func TestKnownAgainIsTheProbes(t *testing.T) {
	o := newSafetyOracle()
	p := func(uids ...string) *history.Probe {
		var pods []history.PodAnswers
		for _, u := range uids {
			pods = append(pods, history.PodAnswers{UID: types.UID(u), Answers: history.Answers{Known: true}})
		}
		return &history.Probe{Pods: pods}
	}
	p1, p2, p3 := p("a"), p("a", "b"), p("a", "b")
	for i, c := range []struct {
		probe *history.Probe
		reset bool
		again bool
		known []string
	}{
		{probe: p1, known: []string{"a"}},
		{probe: p2, known: []string{"a", "b"}},
		{probe: p2, again: true, known: []string{"a", "b"}},
		{probe: p3, known: []string{"a", "b"}},
		{probe: p3, reset: true, known: []string{"a", "b"}},
		{probe: p1, known: []string{"a"}},
	} {
		if c.reset {
			o.Reset()
		}
		known, again := o.knownUIDs(c.probe)
		if again != c.again || !slices.Equal(known, c.known) {
			t.Fatalf("release %d: known %v, again %v; want %v, %v", i, known, again, c.known, c.again)
		}
	}
}

// TestReleaseReadsWhatChanged: a release with the probe and the UIDs of
// the release before keeps that release's answers; a UID tracked since,
// or another probe, has them read again. It fails when the walk is
// skipped for a new probe (stale answers) or with new UIDs (the new
// UID not read).
func TestReleaseReadsWhatChanged(t *testing.T) {
	o := newSafetyOracle()
	probe := func(requested bool) *history.Probe {
		return &history.Probe{Pods: []history.PodAnswers{{UID: "a", Answers: history.Answers{Known: true, TerminationRequested: requested}}}}
	}
	seq := int64(0)
	release := func(p *history.Probe, want ...history.Answers) {
		t.Helper()
		seq += 2
		o.Observe(nil, &history.Event{Seq: seq - 1, Kind: history.LockAcquired, Goroutine: "g"})
		o.Observe(nil, &history.Event{Seq: seq, Kind: history.LockReleasing, Goroutine: "g", Probe: p})
		if !slices.Equal(o.cs.uids, o.uids) || !slices.Equal(o.cs.ans, want) {
			t.Fatalf("release %d: answers of %v: %v, want of %v: %v", seq, o.cs.uids, o.cs.ans, o.uids, want)
		}
	}
	known, requested := history.Answers{Known: true}, history.Answers{Known: true, TerminationRequested: true}
	unknown := history.UnknownAnswers(false) // b: not in the probe, before the first SyncKnownPods
	p := probe(false)
	release(p, known)
	release(p, known) // the same probe and UIDs: kept
	o.track("b")      // named by a call since: not in the probe
	release(p, known, unknown)
	release(probe(true), requested, unknown)
}
