package fakeruntime

import (
	"reflect"
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

// TestRuntimeRenew: a renewed runtime is a new one (NewRuntime's) but for
// the statuses' arrays, kept: its first status is in the last run's
// memory, holding nothing of the last run; a runtime handed over to takes
// its statuses from the same arrays, never one the giver handed out, and
// the giver, detached, writes none it hands out.
func TestRuntimeRenew(t *testing.T) {
	s := sim.New(sim.Options{})
	defer s.Close()
	r := NewRuntime(s, sim.NewPCG(1), plan.Faults{ErrorRate: 5})
	r.SetRunning("a", 2)
	first, _ := r.Get("a")
	next := r.Handover(nil)
	taken, _ := next.Get("b")
	want := *taken
	if late, _ := r.Get("a"); late == taken || *taken != want { // a call in flight at the restart
		t.Fatalf("the giver's Get after the handover wrote the status the runtime handed over to had handed out: %+v, want %+v", *taken, want)
	}
	for range 9 { // past the shared array: the next one comes from the kept ones
		if st, _ := next.Get("b"); st == first {
			t.Fatal("the runtime handed over to hands out the giver's status")
		}
	}
	draw := sim.NewPCG(2)
	r.Renew(s, draw, plan.Faults{})
	fresh := NewRuntime(s, draw, plan.Faults{})
	chunks := r.chunks
	r.chunks, fresh.chunks = nil, nil
	if !reflect.DeepEqual(r, fresh) {
		t.Fatalf("renewed: %+v, want %+v", r, fresh)
	}
	r.chunks = chunks
	st, _ := r.Get("c")
	if want := (workers.PodStatus{ID: "c", Timestamp: s.Now()}); st != first || *st != want {
		t.Errorf("renewed: first status %p %+v, want the last run's memory (%p) holding %+v", st, *st, first, want)
	}
}
