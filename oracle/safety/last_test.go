package safety

import (
	"math/rand/v2"
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

// TestReadProbeIsReadAnswers: a release read from a recorded probe
// (readProbe: one walk through its Pods beside the UIDs tracked, nothing
// read for the probe of the release before when no UID was tracked since)
// leaves what the same release leaves read through the view's methods
// (trackAll and readAnswers): the UIDs tracked, the answers of the
// critical section, each UID's answers last seen, incarnations begun and
// purged, the answers of each UID as safetyCS.of reads them (also for
// a UID tracked after the walk), and the violations — over random probes, each handed once or
// again, with UIDs named by calls in between, across Resets. It fails when
// readProbe tracks no new known UID, reads nothing for a repeated probe
// after a UID was tracked, or takes Known from anything but the probe's
// known UIDs.
func TestReadProbeIsReadAnswers(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	uids := []string{"a", "b", "c", "d", "e", "f"}
	dup := rand.New(rand.NewPCG(9, 10)) // its own stream: r's draws stay those of the probes without twins
	answers := func(r *rand.Rand) history.Answers {
		bits := r.IntN(256)
		return history.Answers{Known: bits&1 != 0, KnownTerminated: bits&2 != 0, CouldHaveRunning: bits&4 != 0,
			BeFinished: bits&8 != 0, TerminationRequested: bits&16 != 0, ContainersBeTerminating: bits&32 != 0,
			RuntimeBeRemoved: bits&64 != 0, ContentBeRemoved: bits&128 != 0}
	}
	newProbe := func() *history.Probe {
		p := &history.Probe{PodsSynced: r.IntN(2) == 0}
		for _, u := range uids {
			if r.IntN(3) == 0 {
				continue // not probed
			}
			p.Pods = append(p.Pods, history.PodAnswers{UID: types.UID(u), Answers: answers(r)})
			if dup.IntN(10) == 0 {
				// A UID listed twice, which no target's probe does: the
				// walk reads it as the view's methods do all the same.
				p.Pods = append(p.Pods, history.PodAnswers{UID: types.UID(u), Answers: answers(dup)})
			}
		}
		return p
	}
	probe, viewed := newSafetyOracle(), newSafetyOracle()
	var p *history.Probe
	repeatsAfterCall, newUIDs := 0, 0
	for i := range 2000 {
		if i%100 == 99 { // a lane's next run: UIDs are new again
			probe.Reset()
			viewed.Reset()
			p = nil
		}
		called := false
		if r.IntN(4) == 0 { // a call names a UID
			u := uids[r.IntN(len(uids))]
			called = probe.pod(u) == nil
			probe.track(u)
			viewed.track(u)
		}
		if p == nil || r.IntN(3) > 0 {
			p = newProbe()
		} else if called {
			repeatsAfterCall++
		}
		before := len(probe.uids)
		seq := int64(2*i + 2)
		for _, o := range []*safetyOracle{probe, viewed} {
			var v safetyView = p
			if o == viewed {
				v = hiddenProbe{p}
			}
			o.step(v, &history.Event{Seq: seq - 1, Kind: history.LockAcquired, Goroutine: "g"})
			o.step(v, &history.Event{Seq: seq, Kind: history.LockReleasing, Goroutine: "g", Probe: p})
		}
		if len(probe.uids) > before {
			newUIDs++
		}
		if !slices.Equal(probe.uids, viewed.uids) || !slices.Equal(probe.cs.uids, viewed.cs.uids) ||
			!slices.Equal(probe.cs.ans, viewed.cs.ans) {
			t.Fatalf("release %d: probe read %v %v (tracked %v), the view %v %v (tracked %v)", i,
				probe.cs.uids, probe.cs.ans, probe.uids, viewed.cs.uids, viewed.cs.ans, viewed.uids)
		}
		for k, a := range probe.tracks {
			b := viewed.tracks[k]
			if a.seen != b.seen || a.seenAns != b.seenAns || a.seenKnown != b.seenKnown || (a.cur == nil) != (b.cur == nil) || len(a.past) != len(b.past) {
				t.Fatalf("release %d, %s: probe read seen %v %v %v, record %v, %d purged; the view %v %v %v, %v, %d", i, a.uid,
					a.seen, a.seenAns, a.seenKnown, a.cur != nil, len(a.past), b.seen, b.seenAns, b.seenKnown, b.cur != nil, len(b.past))
			}
		}
		late := uids[r.IntN(len(uids))] // maybe tracked after the walk: no answers in cs
		probe.track(late)
		viewed.track(late)
		for _, o := range []*safetyOracle{probe, viewed} {
			for _, tr := range o.tracks {
				if got, want := o.cs.of(tr), o.cs.answers(tr.uid); got != want {
					t.Fatalf("release %d, %s: of %+v, answers %+v", i, tr.uid, got, want)
				}
			}
		}
		if n := len(probe.violations); n != len(viewed.violations) || (n > 0 && probe.violations[n-1] != viewed.violations[n-1]) {
			t.Fatalf("release %d: probe read found %v, the view %v", i, probe.violations, viewed.violations)
		}
	}
	if repeatsAfterCall == 0 || newUIDs == 0 {
		t.Fatalf("%d probes handed again after a call named a new UID, %d releases tracked a UID: want some of each",
			repeatsAfterCall, newUIDs)
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
