package world

import (
	"testing"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/sim"
)

// TestKnownFromHistoryMatchesTheRecords: on the correct pod workers, Known
// derived from the history alone (history.KnownFromHistory, what the
// oracles use in observable-only mode) equals the pod workers' record list
// at every release of the pod lock, for every UID, in 60 seeds of every
// kubelet family under each strategy.
func TestKnownFromHistoryMatchesTheRecords(t *testing.T) {
	seeds := uint64(60)
	if testing.Short() {
		seeds = 10
	}
	for _, f := range plan.KubeletFamilies() {
		for _, strategy := range []sim.Strategy{sim.RandomWalk{}, sim.PCT{Depth: 3, Steps: 2000}} {
			for seed := range seeds {
				st := plan.SeedStreams(seed)
				w := NewWorld(f.Generate(st.Plan), st.Schedule, st.Faults, strategy)
				k, releases, bad := history.NewKnownFromHistory(), 0, ""
				w.Observe(func(ev history.Event) {
					derived := k.Rewrite(ev)
					if ev.Probe == nil || bad != "" {
						return
					}
					releases++
					for i, pa := range ev.Probe.Pods {
						if got := derived.Probe.Pods[i]; got.Known != pa.Known || got.Answers.KnownTerminated != pa.KnownTerminated {
							bad = ev.At.String() + " pod " + string(pa.UID)
							t.Errorf("%s %v seed %d: at %s (event %d) derived Known=%v, the records say %v",
								f.Name, strategy, seed, bad, ev.Seq, got.Known, pa.Known)
						}
					}
				})
				if err := w.Run(); err != nil {
					t.Fatalf("%s seed %d: %v", f.Name, seed, err)
				}
				if releases == 0 {
					t.Fatalf("%s seed %d: no release of the pod lock carried query answers", f.Name, seed)
				}
			}
		}
	}
}
