package run

import (
	"testing"

	"github.com/anishathalye/porcupine"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/model/ops"
	"github.com/podsim/podsim/oracle/linearize"
	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/sim"
	"github.com/podsim/podsim/world"
)

// TestCacheViewPinsFirstSight (issue 17, every deciding input recorded):
// an UpdatePod that meets a terminal-phase pod for the first time reads the
// runtime cache, and the history carries what it read, so the model allows
// the one outcome the code chose (state D when idle, TR when busy) instead
// of both. Over kubelet-restart-terminal-pods (where the view read is
// idle: a terminal pod re-added after a restart) each such history is
// linearizable as recorded, and with the view flipped it is not: the
// recorded input decides.
func TestCacheViewPinsFirstSight(t *testing.T) {
	f := familyNamed(t, "kubelet-restart-terminal-pods")
	seen := map[ops.CacheView]int{}
	flippedIllegal := 0
	for seed := uint64(0); seed < 40; seed++ {
		s := plan.SeedStreams(seed)
		w := world.NewWorld(f.Generate(s.Plan), s.Schedule, s.Faults, sim.RandomWalk{})
		rec := history.NewRecorder()
		w.Observe(func(ev history.Event) {
			if ev.Kind == history.Restarted {
				rec = history.NewRecorder() // judge the last epoch only
				return
			}
			rec.Observe(&ev)
		})
		if r := judge(f, seed, w, CheckOptions{}, nil); r.Failed() {
			t.Fatalf("seed %d: %v", seed, r)
		}
		h := rec.History()
		for i, op := range h.Ops {
			u, ok := op.Input.(ops.UpdatePod)
			if !ok || u.Cache == ops.CacheUnknown {
				continue
			}
			seen[u.Cache]++
			if v := linearize.CheckHistory(h, linearize.Options{}); v.Result != porcupine.Ok {
				t.Fatalf("seed %d: recorded history not linearizable: %s", seed, v.Reason)
			}
			flipped := h
			flipped.Ops = append([]porcupine.Operation(nil), h.Ops...)
			u.Cache = ops.CacheIdle + ops.CacheBusy - u.Cache
			flipped.Ops[i].Input = u
			if v := linearize.CheckHistory(flipped, linearize.Options{ForcePorcupine: true}); v.Result == porcupine.Illegal {
				flippedIllegal++
			}
			break
		}
	}
	if seen[ops.CacheIdle]+seen[ops.CacheBusy] == 0 || flippedIllegal == 0 {
		t.Errorf("views recorded %v, histories made illegal by flipping the view: %d; want some of each", seen, flippedIllegal)
	}
	t.Logf("views recorded %v; %d flipped histories illegal", seen, flippedIllegal)
}
