package world

import (
	"slices"
	"testing"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/model/ops"
	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/sim"
)

// TestStaticShapeFollowsCalls: a run draws static=yes exactly when one of
// its UpdatePod calls with a pod was for a static pod, and static=no
// exactly when one was for an API pod (the world hands shapes.Note the
// model's static bit).
func TestStaticShapeFollowsCalls(t *testing.T) {
	for _, f := range plan.Families() {
		name := f.Name
		for seed := range uint64(4) {
			st := plan.SeedStreams(seed)
			w := NewWorld(f.Generate(st.Plan), st.Schedule, st.Faults, sim.RandomWalk{})
			var static, api bool
			w.Observe(func(ev history.Event) {
				if u, ok := ev.Input.(ops.UpdatePod); ok && ev.Kind == history.ClientCall && !u.RuntimeOnly && u.Pod.UID != "" {
					static, api = static || u.Pod.Static, api || !u.Pod.Static
				}
			})
			if err := w.Run(); err != nil {
				t.Fatalf("%s seed %d: %v", name, seed, err)
			}
			drawn := w.InputShapes()
			if slices.Contains(drawn, "static=yes") != static || slices.Contains(drawn, "static=no") != api {
				t.Errorf("%s seed %d: drew %v; calls for static pods %v, for API pods %v", name, seed, drawn, static, api)
			}
		}
	}
}
