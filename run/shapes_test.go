package run

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/sim"
	"github.com/podsim/podsim/world"
	"github.com/podsim/podsim/world/shapes"
)

// shapesDrawn sweeps seeds [0, n) of f under both strategies and counts
// the seeds that drew each input shape (shapes.Dimensions).
func shapesDrawn(f plan.Family, n uint64) map[string]int {
	drawn := map[string]int{}
	for _, st := range []sim.Strategy{sim.RandomWalk{}, sim.PCT{Depth: 3, Steps: 2000}} {
		for seed := range n {
			s := plan.SeedStreams(seed)
			w := world.NewWorld(f.Generate(s.Plan), s.Schedule, s.Faults, st)
			judge(f, seed, w, CheckOptions{}, nil)
			for _, sh := range w.InputShapes() {
				drawn[sh]++
			}
		}
	}
	return drawn
}

// shapesNeverDrawn are the shapes of the pod-worker API no family draws:
// a create that carries the runtime's view of the pod, alone or beside the
// pod. The config source's ADD always carries the pod (the world's add has
// no Target); at the workers' boundary the first is a runtime-only non-kill
// update (ignored, SPEC §1.4 step 1, drawn as update/sync running-pod) and
// the second a create with its pod (the pod wins, drawn as create/pod).
var shapesNeverDrawn = []string{"type×target=create/running-pod", "type×target=create/both"}

// TestInputShapes reports, per family, the input shapes it draws, and
// checks that together the families draw every shape but the ones listed
// as never drawn (so a generator change that stops drawing one fails
// here, and one that starts drawing a listed one must update the list).
func TestInputShapes(t *testing.T) {
	n := uint64(12)
	if testing.Short() {
		n = 8
	}
	all := map[string]int{}
	var table strings.Builder
	for _, f := range plan.Families() {
		drawn := shapesDrawn(f, n)
		var row []string
		for _, dim := range shapes.Dimensions {
			for _, sh := range dim {
				if drawn[sh] > 0 {
					row = append(row, sh)
					all[sh] += drawn[sh]
				}
			}
		}
		fmt.Fprintf(&table, "%s: %s\n", f.Name, strings.Join(row, " "))
	}
	t.Logf("input shapes drawn over %d seeds × 2 strategies per family:\n%s", n, table.String())
	for _, dim := range shapes.Dimensions {
		for _, sh := range dim {
			never := slices.Contains(shapesNeverDrawn, sh)
			if all[sh] == 0 && !never {
				t.Errorf("no family drew %s", sh)
			}
			if all[sh] > 0 && never {
				t.Errorf("%s is drawn now (%d seeds): take it off shapesNeverDrawn", sh, all[sh])
			}
		}
	}
}
