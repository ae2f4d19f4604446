package safety

import (
	"math/rand/v2"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/oracle"
)

// hiddenProbe is a recorded probe the oracle cannot see as one: it reads
// every answer through the view's methods, never the shortcuts a
// *history.Probe allows (mirrorReader's walk, mayTerminate).
type hiddenProbe struct{ *history.Probe }

// randomRelease builds, from r, an oracle in the middle of a run and the
// critical section it is judging: up to four tracked UIDs, some with a
// static record (started or not, seen by its worker or not) bearing one
// of three full names, their answers, and a probe whose mirror answers
// name some of those full names (and one no record bears).
func randomRelease(r *rand.Rand) (*safetyOracle, *safetyCS, *history.Probe) {
	o := newSafetyOracle()
	names := []string{"a_default", "b_default", "c_default", "z_default"}
	o.sortedFullnames = names[:1+r.IntN(3)]
	cs := &safetyCS{ev: &history.Event{}, purged: map[string]*safetyInc{}}
	for i := range r.IntN(5) {
		uid := "u" + strconv.Itoa(i)
		t := o.track(uid)
		if r.IntN(2) == 0 {
			t.cur = &safetyInc{uid: uid, n: 1, static: r.IntN(3) > 0, fullname: names[r.IntN(3)],
				starts: r.IntN(2), workerSeen: r.IntN(2) == 0}
			if t.cur.static {
				o.statics++ // as bindUpdate counts them
			}
		}
		a := oracle.Answers{Known: t.cur != nil, BeFinished: r.IntN(4) == 0, TerminationRequested: r.IntN(2) == 0,
			KnownTerminated: r.IntN(3) == 0}
		cs.uids, cs.ans = append(cs.uids, uid), append(cs.ans, a)
		t.csIdx = i
	}
	mirror := map[string]bool{}
	for _, f := range names {
		if r.IntN(2) == 0 {
			mirror[f] = r.IntN(3) == 0
		}
	}
	return o, cs, history.NewProbe(r.IntN(2) == 0, nil, mirror)
}

// TestCheckMirrorShortcutsChangeNothing: checkMirror through a recorded
// probe (its walk and its early return when no static record is
// unfinished and no full name answers true) reports what it reports
// reading every answer through the view, on random records and probes.
// The cases include reports with no unfinished static record, so an early
// return that skipped a true mirror answer would fail the comparison.
func TestCheckMirrorShortcutsChangeNothing(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 5))
	reportedWithoutStatics, returnedEarly := 0, 0
	for i := 0; i < 3000; i++ {
		seed := r.Uint64()
		judge := func(view func(*history.Probe) safetyView) ([]history.Violation, int) {
			o, cs, p := randomRelease(rand.New(rand.NewPCG(seed, 1)))
			cs.v = view(p)
			o.checkMirror(cs.v, cs)
			return o.violations, len(o.staticBuf)
		}
		got, statics := judge(func(p *history.Probe) safetyView { return p })
		want, _ := judge(func(p *history.Probe) safetyView { return hiddenProbe{p} })
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("case %d: through the probe %v, through the view %v", i, got, want)
		}
		switch {
		case statics == 0 && len(want) > 0:
			reportedWithoutStatics++
		case statics == 0:
			returnedEarly++
		}
	}
	if reportedWithoutStatics == 0 || returnedEarly == 0 {
		t.Fatalf("cases with no unfinished static record: %d reported, %d reported nothing; want some of each",
			reportedWithoutStatics, returnedEarly)
	}
}

// TestCSOfIsAnswers: a critical section's answers for a tracked UID read
// at its walk index (safetyCS.of) are those the search finds, also when
// the index is stale (the UID was tracked after the walk, or moved by an
// insertion before it).
func TestCSOfIsAnswers(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	for i := 0; i < 2000; i++ {
		cs := &safetyCS{}
		var pods []*safetyPod
		for j := range r.IntN(6) {
			uid := "u" + strconv.Itoa(r.IntN(8))
			if slices.Contains(cs.uids, uid) {
				continue
			}
			pods = append(pods, &safetyPod{uid: uid, csIdx: r.IntN(6)})
			cs.uids = append(cs.uids, uid)
			cs.ans = append(cs.ans, oracle.Answers{Known: j%2 == 0, BeFinished: r.IntN(2) == 0})
		}
		order := make([]int, len(cs.uids))
		for j := range order {
			order[j] = j
		}
		slices.SortFunc(order, func(a, b int) int { return strings.Compare(cs.uids[a], cs.uids[b]) })
		uids, ans := make([]string, len(order)), make([]oracle.Answers, len(order))
		for j, k := range order {
			uids[j], ans[j] = cs.uids[k], cs.ans[k]
			if r.IntN(3) > 0 {
				pods[k].csIdx = j // as the walk sets it; else stale
			}
		}
		cs.uids, cs.ans = uids, ans
		pods = append(pods, &safetyPod{uid: "late", csIdx: r.IntN(3)})
		for _, p := range pods {
			if got, want := cs.of(p), cs.answers(p.uid); got != want {
				t.Fatalf("case %d: %s at index %d in %v: of %+v, answers %+v", i, p.uid, p.csIdx, cs.uids, got, want)
			}
		}
	}
}
