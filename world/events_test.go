package world

import (
	"testing"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/model/ops"
	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/sim"
	"github.com/podsim/podsim/world/boxes"
)

// TestObservedEventsFireWhatTheyAre: an observed event, which keeps its
// UID and completion ID and boxes its Fired input only as it fires, emits
// a cancellation as CancelFired and a completion as CompletionFired with
// its own ID; over ten seeds of every kubelet family both kinds fire, each
// completion ID at most once, each for a UID of the plan.
func TestObservedEventsFireWhatTheyAre(t *testing.T) {
	for _, c := range []*boxes.Cache{nil, new(boxes.Cache)} { // a world's own boxes, a lane's kept ones
		for range 2 {
			if got, want := c.Fired("a", cancelled), (ops.CancelFired{UID: "a"}); got != ops.Input(want) {
				t.Errorf("a cancellation fires %#v, want %#v", got, want)
			}
			if got, want := c.Fired("a", 3), (ops.CompletionFired{UID: "a", ID: 3}); got != ops.Input(want) {
				t.Errorf("a completion fires %#v, want %#v", got, want)
			}
		}
	}
	var cancels, completions int
	for _, f := range plan.KubeletFamilies() {
		for seed := range uint64(10) {
			st := plan.SeedStreams(seed)
			p := f.Generate(st.Plan)
			w := NewWorld(p, st.Schedule, st.Faults, sim.RandomWalk{})
			uids := map[string]bool{}
			for _, a := range p.Actions {
				uids[string(a.UID)] = true
			}
			ids := map[int]bool{}
			w.Observe(func(ev history.Event) {
				if ev.Kind != history.Fired {
					return
				}
				switch in := ev.Input.(type) {
				case ops.CancelFired:
					cancels++
					if !uids[in.UID] {
						t.Errorf("%s seed %d: cancellation of %q, not a pod of the plan", f.Name, seed, in.UID)
					}
				case ops.CompletionFired:
					completions++
					if !uids[in.UID] || in.ID <= 0 || ids[in.ID] {
						t.Errorf("%s seed %d: completion %d of %q (fired before: %v)", f.Name, seed, in.ID, in.UID, ids[in.ID])
					}
					ids[in.ID] = true
				default:
					t.Errorf("%s seed %d: Fired %T", f.Name, seed, ev.Input)
				}
			})
			if err := w.Run(); err != nil {
				t.Fatalf("%s seed %d: %v", f.Name, seed, err)
			}
		}
	}
	if cancels == 0 || completions == 0 {
		t.Errorf("%d cancellations and %d completions fired: the test saw nothing", cancels, completions)
	}
}
