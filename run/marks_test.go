package run

import (
	"slices"
	"testing"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/sim"
	"github.com/podsim/podsim/world"
)

// TestFamiliesReachTheirMarks: each family reaches every situation it
// exists for within its declared minimum sweep (plan.Family.MinimumSeeds:
// 200, grace-shortening 1,500), the budget at which simrun run and the
// gate fail on an unreached mark; a mark at zero is a generator bug. (It
// was 300 seeds of every family, which proved the same for all but
// grace-shortening and more than was declared for the rest.)
func TestFamiliesReachTheirMarks(t *testing.T) {
	if testing.Short() {
		t.Skip("-short (make race): one run after another, as TestSwarmSeedsPass makes them (every family, under -race " +
			"too); make test runs it")
	}
	for _, f := range plan.Families() {
		n := f.MinimumSeeds()
		reached := map[string]int{}
		for seed := uint64(0); seed < n; seed++ {
			r := RunSeed(f, seed, sim.RandomWalk{}, CheckOptions{})
			for _, m := range r.Marks {
				reached[m]++
			}
		}
		for _, m := range f.Marks {
			if reached[m] == 0 {
				t.Errorf("%s: mark %s reached in 0 of %d seeds (reached: %v)", f.Name, m, n, reached)
			}
		}
	}
}

// TestMarksNeedTheirSituation guards the marker against marking everything:
// a plan with one pod that is created and left alone reaches no mark.
func TestMarksNeedTheirSituation(t *testing.T) {
	pl := plan.Plan{Family: "quiet", Clients: 1, Actions: []plan.Action{{Kind: plan.Create, UID: "a", SpecGrace: 30, Grace: -1}}}
	w := world.NewWorld(pl, sim.NewReplay(nil), sim.NewReplay(nil), sim.RandomWalk{})
	m := history.NewMarker()
	w.Observe(func(ev history.Event) { m.Observe(&ev) })
	if err := w.Run(); err != nil {
		t.Fatal(err)
	}
	if got := m.Sorted(); !slices.Equal(got, nil) {
		t.Fatalf("got marks %v, want none", got)
	}
}
