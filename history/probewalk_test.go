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

// TestProbesAreTheirOwn: the probes one Probes makes (New, Copy, Sharing;
// more than a slab's worth, few pods and many) each hold their own answers:
// a change to the latest copy reaches no earlier probe, and New copies the
// caller's buffer, which the caller then reuses.
func TestProbesAreTheirOwn(t *testing.T) {
	var ps Probes
	var made []*Probe
	var want [][]PodAnswers
	buf := []PodAnswers{}
	for k := range 5 * SlabSize {
		n := 1 + k%(probeRoom+2)
		buf = buf[:0]
		for i := range n {
			buf = append(buf, PodAnswers{UID: types.UID(fmt.Sprint("uid-", i)), Answers: Answers{Known: k%2 == 0}})
		}
		var p *Probe
		switch k % 3 {
		case 0:
			p = ps.New(k%4 == 0, buf, nil)
		case 1:
			p = ps.Copy(ps.New(true, buf, nil))
		default:
			p = ps.Sharing(true, slices.Clone(buf), nil)
		}
		p.Pods[n-1].Answers.KnownTerminated = true // what a probeTouched copy does
		buf[0].Answers.BeFinished = true           // the caller's buffer, reused
		made, want = append(made, p), append(want, slices.Clone(p.Pods))
		for j, q := range made {
			if !slices.Equal(q.Pods, want[j]) {
				t.Fatalf("probe %d changed by probe %d's making: %+v, want %+v", j, k, q.Pods, want[j])
			}
		}
	}
}
