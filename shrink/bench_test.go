package shrink

import (
	"testing"

	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/run"
	"github.com/podsim/podsim/sim"
)

// BenchmarkShrinkPlanted measures one whole shrink of a real 23-action
// swarm run under the planted kill-during-SyncPod oracle (about 150
// candidate runs):
//
//	go test -run '^$' -bench ShrinkPlanted ./shrink
func BenchmarkShrinkPlanted(b *testing.B) {
	c := firstSeedReaching(b, familyNamed(b, "swarm"), plan.MarkKillDuringSyncPod)
	runs := 0
	for b.Loop() {
		s, err := shrinkWith(c, sim.RandomWalk{}, run.CheckOptions{}, Options{}, planted(plan.MarkKillDuringSyncPod, "P1"))
		if err != nil {
			b.Fatal(err)
		}
		runs = s.Runs
	}
	b.ReportMetric(float64(runs), "runs/shrink")
}
