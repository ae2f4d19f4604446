package run

import (
	"testing"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/model/check"
	"github.com/podsim/podsim/sim"
)

// TestMarkedSearchIsSound: porcupine over the history with its markers
// (check.CheckMarked, searchHistory's first try) accepts only histories
// that porcupine without them accepts too, on recorded swarm histories —
// whose operations overlap, so there are orders to search — and on their
// corrupted copies; and it accepts most uncorrupted ones (else it would
// save nothing).
func TestMarkedSearchIsSound(t *testing.T) {
	seeds := uint64(60)
	if testing.Short() {
		seeds = 15
	}
	swarm := familyNamed(t, "swarm")
	markedOK, plainOK, total := 0, 0, 0
	for seed := range seeds {
		r := recordSeed(swarm, seed, sim.RandomWalk{})
		src := sim.NewPCG(sim.Derive(seed, "corrupt"))
		histories := []history.History{r.h}
		for _, c := range corruptions {
			if h, ok := corrupt(r.h, c, src); ok {
				histories = append(histories, h)
			}
		}
		for i, h := range histories {
			total++
			marked, _ := check.CheckMarked(h.MarkedOps(), time.Minute)
			plain, _ := check.Check(h.Ops, time.Minute)
			if marked == porcupine.Ok && plain != porcupine.Ok {
				t.Fatalf("seed %d history %d: with markers Ok, without them %v", seed, i, plain)
			}
			if i == 0 && plain == porcupine.Ok {
				plainOK++
				if marked == porcupine.Ok {
					markedOK++
				}
			}
		}
	}
	if markedOK*10 < plainOK*9 {
		t.Errorf("with markers %d of %d uncorrupted histories Ok, want at least 90%%", markedOK, plainOK)
	}
	t.Logf("%d histories; uncorrupted Ok with markers %d of %d", total, markedOK, plainOK)
}
