package kubelet

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/oracle"
)

// TestCommittedSetIsTheMap: after every release, committedSet holds what a
// map set to probe.Answers(uid) for each listed UID holds (the form it
// replaced), on random releases: random probes, UID lists sorted or not,
// with repeats, growing and shrinking; a UID no release listed is absent.
// A set reset between runs starts empty.
func TestCommittedSetIsTheMap(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 17))
	uid := func() types.UID { return types.UID("u" + strconv.Itoa(r.IntN(9))) }
	var s committedSet
	for run := 0; run < 200; run++ {
		s.reset()
		want := map[types.UID]oracle.Answers{}
		for range r.IntN(12) {
			answers := map[types.UID]history.Answers{}
			for range r.IntN(7) {
				answers[uid()] = history.Answers{Known: r.IntN(2) == 0, BeFinished: r.IntN(2) == 0}
			}
			probe := history.NewProbe(r.IntN(2) == 0, answers, nil)
			var listed []types.UID
			for range r.IntN(7) {
				listed = append(listed, uid())
			}
			if r.IntN(2) == 0 {
				listed = slices.Sorted(slices.Values(listed))
			}
			for _, u := range listed {
				want[u] = probe.Answers(u)
			}
			s.record(listed, probe)
			for i := range 10 {
				u := types.UID("u" + strconv.Itoa(i))
				got, ok := s.get(u)
				w, wok := want[u]
				if got != w || ok != wok {
					t.Fatalf("run %d, %s after listing %v: got %+v %v, want %+v %v", run, u, listed, got, ok, w, wok)
				}
			}
		}
	}
}
