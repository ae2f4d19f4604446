package history

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/types"
)

// TestProbeWalkAgreesWithAnswers: asked in ascending order, a ProbeWalk
// answers as Probe.Answers does, for probed UIDs and for UIDs between,
// before and after them (which answer as unknown ones).
func TestProbeWalkAgreesWithAnswers(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	names := []types.UID{"a", "b", "c", "d", "e", "f", "g"}
	for round := range 500 {
		answers := map[types.UID]Answers{}
		for _, uid := range names {
			if r.IntN(2) == 0 {
				answers[uid] = Answers{Known: r.IntN(2) == 0, BeFinished: r.IntN(2) == 0, CouldHaveRunning: r.IntN(2) == 0}
			}
		}
		p := NewProbe(r.IntN(2) == 0, answers, nil)
		var asked []types.UID
		for _, uid := range append(slices.Clone(names), "0", "z") {
			if r.IntN(3) > 0 {
				asked = append(asked, uid)
			}
		}
		slices.Sort(asked)
		w := ProbeWalk{Probe: p}
		for _, uid := range asked {
			if got, want := w.Answers(uid), p.Answers(uid); got != want {
				t.Fatalf("round %d, %s: the walk answered %+v, Answers %+v", round, uid, got, want)
			}
		}
	}
}

// TestProbeWalkSeesAChange: a walk reads the probe's answers, not
// unknown ones (a walk that answered every UID as unknown would agree
// with Answers on an empty probe only).
func TestProbeWalkSeesAChange(t *testing.T) {
	p := NewProbe(true, map[types.UID]Answers{"b": {Known: true}}, nil)
	w := ProbeWalk{Probe: p}
	if got := w.Answers("a"); got != UnknownAnswers(true) {
		t.Fatalf("a: got %+v, want the unknown answers", got)
	}
	if got := w.Answers("b"); !got.Known {
		t.Fatalf("b: got %+v, want Known", got)
	}
}

// TestProbeCopyIsACopy: a probe's Copy holds its answers, and a change to
// the copy's Pods never reaches the probe, whether the copy holds them in
// its own allocation (probeRoom pods or fewer) or not.
func TestProbeCopyIsACopy(t *testing.T) {
	for _, n := range []int{1, probeRoom, probeRoom + 1} {
		p := &Probe{PodsSynced: true, Mirror: []MirrorAnswer{{FullName: "a_default"}}}
		for i := range n {
			p.Pods = append(p.Pods, PodAnswers{UID: types.UID(fmt.Sprint("uid-", i)), Answers: Answers{Known: true}})
		}
		c := p.Copy()
		if c.PodsSynced != p.PodsSynced || !slices.Equal(c.Pods, p.Pods) || !slices.Equal(c.Mirror, p.Mirror) {
			t.Fatalf("%d pods: copy %+v, probe %+v", n, *c, *p)
		}
		c.Pods[n-1].Answers.Known = false
		if !p.Pods[n-1].Answers.Known {
			t.Errorf("%d pods: a change to the copy's answers reached the probe", n)
		}
	}
}
