package fakeruntime

import (
	"testing"

	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/sim"
	"github.com/podsim/podsim/workers"
)

// TestStatusesAreTheirOwn: every status Get returns (eight to an
// allocation, more than two allocations' worth here) is a new one that
// later Gets and runtime changes leave as it was returned.
func TestStatusesAreTheirOwn(t *testing.T) {
	s := sim.New(sim.Options{})
	defer s.Close()
	r := NewRuntime(s, sim.NewPCG(1), plan.Faults{})
	var got []*workers.PodStatus
	var want []workers.PodStatus
	for i := range 20 {
		uid := types.UID(string(rune('a' + i%3)))
		r.SetRunning(uid, i)
		st, err := r.Get(uid)
		if err != nil {
			t.Fatal(err)
		}
		got, want = append(got, st), append(want, *st)
		for j, g := range got {
			if *g != want[j] {
				t.Fatalf("status %d changed by Get %d: %+v, want %+v", j, i, *g, want[j])
			}
		}
	}
}
