package run

import (
	"testing"
	"time"

	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/sim"
)

// TestWorkersMutantSurvivesRestart: the pod workers a kubelet restart
// builds run the same mutated code (startEpoch re-introduces it). Some seed
// of swarm-restart must break the workers' own invariants with B2 only after
// its first restart: those are checked in the current epoch's pod workers
// only, so with the mutant dropped at the restart nothing could break them
// after it (checked by hand: dropping the re-introduction fails this test).
func TestWorkersMutantSurvivesRestart(t *testing.T) {
	f := familyNamed(t, "swarm-restart")
	for seed := uint64(0); seed < 400; seed++ {
		rp := ReplaySeed(f, seed, sim.RandomWalk{}, CheckOptions{Mutant: "B2"})
		restart, ok := firstRestart(rp.Plan)
		if !ok || !rp.Failed() || rp.Err != nil {
			continue
		}
		first := rp.Violations[0]
		for _, v := range rp.Violations {
			if v.At < first.At {
				first = v
			}
		}
		// The workers' own invariants are checked in the current epoch's
		// pod workers only (startEpoch), so this one broke after the restart.
		if first.At > restart && first.Oracle == "workers" {
			t.Logf("seed %d: restart at %v, first violation %v", seed, restart, first)
			return
		}
	}
	t.Fatal("no swarm-restart seed in 400 failed with B2 after a kubelet restart only")
}

func firstRestart(p plan.Plan) (at time.Duration, ok bool) {
	for _, a := range p.Actions {
		if a.Kind == plan.Restart {
			return a.At, true
		}
	}
	return 0, false
}
