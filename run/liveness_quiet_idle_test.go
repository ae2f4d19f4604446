package run

import (
	"slices"
	"testing"

	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/sim"
	"github.com/podsim/podsim/world"
)

// idleMode is how a run treats the idle ticks of its settle phase.
type idleMode int

const (
	idleSkipped  idleMode = iota // the rule as every run takes it
	idleTicked                   // every idle tick kept (TickIdle: the runs before world/quiet's idle.go)
	idleCareless                 // a wrong skip that sleeps past due entries (CarelessIdle)
)

// idleRun runs one seed of f with every oracle, the mutant on (none: "")
// with the settle phase's shortcuts forced on for it (MutantShortcuts),
// its idle ticks treated as told, under strategy (nil: the random walk).
// It returns the verdict and the scheduling steps.
func idleRun(f plan.Family, seed uint64, mutant string, mode idleMode, strategy sim.Strategy) ([]string, int64) {
	if strategy == nil {
		strategy = sim.RandomWalk{}
	}
	w := settleWorld(f, seed, mutant, strategy, world.SettleRules{TickIdle: mode == idleTicked,
		CarelessIdle: mode == idleCareless, MutantShortcuts: mutant != ""})
	r := judge(f, seed, w, CheckOptions{Mutant: mutant}, nil)
	return verdictOf(r), w.S.Steps()
}

// TestIdleTicksSkipped: skipping the idle ticks of a settle phase that
// cannot end early (world/quiet's idle.go) gives every seed of every
// kubelet family, under the random walk and PCT, the verdict of the run
// that ticks throughout; the skip acts (fewer steps) in the families with
// natural completion. The runs are not the same run after the first skip
// (the schedule stream moves), so this compares verdicts, not traces: on
// the code as written every verdict is a pass, and a difference is a false
// alarm or a lost one. Longer: -args -quiet.seeds 2000.
func TestIdleTicksSkipped(t *testing.T) {
	seeds := quietSeedCount(150, 25)
	for _, f := range plan.KubeletFamilies() {
		t.Run(f.Name, func(t *testing.T) {
			var before, after int64
			moved := 0
			for seed := range seeds {
				for _, strategy := range []sim.Strategy{nil, sim.PCT{Depth: 3, Steps: 1000}} {
					skipped, ns := idleRun(f, seed, "", idleSkipped, strategy)
					ticked, nt := idleRun(f, seed, "", idleTicked, strategy)
					if !slices.Equal(skipped, ticked) {
						t.Fatalf("seed %d (%v): with the idle ticks skipped got %q, ticking %q", seed, strategy, skipped, ticked)
					}
					before, after = before+nt, after+ns
					if ns != nt {
						moved++
					}
				}
			}
			t.Logf("%d of %d runs skipped idle ticks; steps %d -> %d", moved, 2*seeds, before, after)
			if natural[f.Name] && moved == 0 {
				t.Errorf("no run skipped an idle tick: the rule was not exercised")
			}
		})
	}
}

// natural are the families whose seeds may turn natural completion on,
// where the idle skip must act.
var natural = map[string]bool{"swarm": true, "swarm-restart": true, "eviction-wait": true, "rejected-admission": true,
	"error-shapes": true, "kubelet-restart-terminal-pods": true}

// TestIdleSkipMutants: with every catalogued mutant on, on the families
// its gate runs, and the shortcuts forced on (MutantShortcuts), skipping
// the idle ticks finds each mutant as the ticking run does. Per seed the
// runs part after the first skip, so a seed's verdict may differ; what
// must hold is the detection: every mutant the ticking runs catch is
// caught with the skip, and the number of failing seeds stays within a
// quarter of the ticking runs' (the schedule stream moved, nothing else).
// Sweeps and the gate keep every tick of a mutant's run anyway
// (World.AsWritten).
func TestIdleSkipMutants(t *testing.T) {
	seeds := quietSeedCount(8, 3)
	for _, m := range Mutants() {
		if m.Kind == KindVK {
			continue // the VK world has no kubelet settle rules
		}
		caughtS, caughtT, differ := 0, 0, 0
		for _, name := range m.Families {
			f, _ := plan.FamilyNamed(name)
			for seed := range seeds {
				skipped, _ := idleRun(f, seed, m.Name, idleSkipped, nil)
				ticked, _ := idleRun(f, seed, m.Name, idleTicked, nil)
				if failed(skipped) {
					caughtS++
				}
				if failed(ticked) {
					caughtT++
				}
				if !slices.Equal(detection(skipped), detection(ticked)) {
					differ++
				}
			}
		}
		t.Logf("%s: %d failing runs with the idle skip, %d ticking; %d of %d runs detect otherwise",
			m.Name, caughtS, caughtT, differ, len(m.Families)*int(seeds))
		if (caughtS == 0) != (caughtT == 0) || 4*abs(caughtS-caughtT) > caughtT {
			t.Errorf("%s: %d failing runs with the idle skip, %d ticking", m.Name, caughtS, caughtT)
		}
	}
}

func abs(x int) int { return max(x, -x) }

// TestIdleSkipCarelessCaught: the comparison of TestIdleTicksSkipped fails
// for a wrong skip, one that sleeps past the work queue's due entries to
// the end of the phase (the sync loop's tick that would hand a resync out
// does work): some verdict changes.
func TestIdleSkipCarelessCaught(t *testing.T) {
	for _, f := range plan.KubeletFamilies() {
		for seed := range quietSeedCount(150, 150) {
			careless, _ := idleRun(f, seed, "", idleCareless, nil)
			if ticked, _ := idleRun(f, seed, "", idleTicked, nil); !slices.Equal(careless, ticked) {
				t.Logf("%s seed %d: the careless skip gives %q, ticking %q", f.Name, seed, careless, ticked)
				return
			}
		}
	}
	t.Error("the careless idle skip gave every seed the ticking verdict: the comparison cannot tell a wrong skip")
}
