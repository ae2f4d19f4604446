package fakeruntime

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/types"
)

// TestPodCountsAgainstMap: the running counts (a slice searched by UID)
// against a map, over a seeded mix of sets in any UID order: every get
// agrees, and RunningUIDs lists the UIDs with a count above zero, sorted.
// Fails when set adds a second entry for a UID, when the entries lose
// their order (the search misses), or when a get misses a set count.
func TestPodCountsAgainstMap(t *testing.T) {
	r, ref := rand.New(rand.NewPCG(3, 4)), map[types.UID]int{}
	rt := &Runtime{}
	for step := range 3000 {
		uid := types.UID(fmt.Sprintf("u%d", r.IntN(15)))
		if r.IntN(2) == 0 {
			n := r.IntN(3)
			rt.SetRunning(uid, n)
			ref[uid] = n
		}
		if got, want := rt.Running(uid), ref[uid]; got != want {
			t.Fatalf("step %d: %s runs %d, want %d", step, uid, got, want)
		}
		var want []types.UID
		for uid, n := range ref {
			if n > 0 {
				want = append(want, uid)
			}
		}
		slices.Sort(want)
		if got := rt.RunningUIDs(nil); !slices.Equal(got, want) || len(rt.running) != len(ref) {
			t.Fatalf("step %d: running %v (%d entries), want %v (%d)", step, got, len(rt.running), want, len(ref))
		}
	}
}
