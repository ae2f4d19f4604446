package run

import (
	"fmt"
	"sort"
	"testing"
	"time"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/oracle"
	"github.com/podsim/podsim/oracle/linearize"
	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/sim"
	"github.com/podsim/podsim/world"
)

// sweepStats counts what a sweep of seeds saw.
type sweepStats struct {
	seeds, ops, failures int
	// fallbacks are the passing seeds whose effect order the model rejects
	// (porcupine found another order), by the witness's reason.
	fallbacks map[string][]string
	// closure are the seeds whose effect order failed with the worker-step
	// markers and passed without them (see replayWitness): a stale worker's
	// marker, or a worker that took an update the model says it may not
	// (the closure may postpone the take for ever, the marker may not).
	closure []string
}

func newSweepStats() *sweepStats {
	return &sweepStats{fallbacks: map[string][]string{}}
}

// sweep runs seeds [0, n) of f through the linearizability oracle alone
// (the oracle's own Observe and Finish, as RunSeed uses them) and fails the
// test on any violation.
func sweep(t *testing.T, f plan.Family, n uint64, strategy sim.Strategy, stats *sweepStats) {
	t.Helper()
	for seed := uint64(0); seed < n; seed++ {
		st := plan.SeedStreams(seed)
		w := world.NewWorld(f.Generate(st.Plan), st.Schedule, st.Faults, strategy)
		// One oracle per kubelet process (a restart starts a fresh history);
		// o is the last one's.
		var o *checkedHistory
		epochs := newEpochOracles(func() []oracle.Oracle {
			o = &checkedHistory{rec: history.NewRecorder()}
			return []oracle.Oracle{o}
		})
		view := w.View()
		w.Observe(func(ev history.Event) { epochs.Observe(view, &ev) })
		err := w.Run()
		if err != nil || len(w.Violations) > 0 {
			t.Fatalf("%s seed %d: the run itself failed (%v, %v): not a passing run", f.Name, seed, err, w.Violations)
		}
		viol := epochs.Finish(view, err)
		h, v := o.h, o.v
		stats.seeds++
		stats.ops += len(h.Ops)
		if v.Witness && v.Mode == "closure" && len(h.Effects) > len(h.Ops) {
			stats.closure = append(stats.closure, fmt.Sprintf("%s/%d", f.Name, seed))
		}
		if len(viol) == 0 {
			if !v.Witness {
				name := "witness failed, porcupine ok: " + v.Reason
				stats.fallbacks[name] = append(stats.fallbacks[name], fmt.Sprintf("%s/%d", f.Name, seed))
			}
			continue
		}
		stats.failures++
		t.Errorf("%s seed %d (%s): got %v, want no violation\n%v\n%s", f.Name, seed, strategy, viol[0],
			f.Generate(plan.SeedStreams(seed).Plan), linearize.WitnessText(h, v))
		if stats.failures >= 3 {
			t.FailNow()
		}
	}
}

func (s *sweepStats) report(t *testing.T, what string, elapsed time.Duration) {
	t.Helper()
	t.Logf("%s: %d seeds, %d operations, in %v (%.0f µs/seed)", what, s.seeds, s.ops,
		elapsed.Round(time.Millisecond), float64(elapsed.Microseconds())/float64(max(s.seeds, 1)))
	if len(s.closure) > 0 {
		t.Logf("  marked replay failed, closure replay passed: %d seeds %v", len(s.closure), s.closure)
	}
	for _, group := range []struct {
		what string
		m    map[string][]string
	}{{"passed by porcupine, witness failed", s.fallbacks}} {
		names := make([]string, 0, len(group.m))
		for name := range group.m {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			t.Logf("  %s %q: %d seeds %v", group.what, name, len(group.m[name]), group.m[name])
		}
	}
}

// TestLinearizabilitySwarmNoFalseAlarms is the must-show: 10,000 random
// runs of the correct workers (make sweep; make test runs 1,000), each
// checked by the oracle, with no violation.
func TestLinearizabilitySwarmNoFalseAlarms(t *testing.T) {
	if testing.Short() {
		t.Skip("1,000 seeds (10,000 under -long); run without -short")
	}
	start := time.Now()
	stats := newSweepStats()
	sweep(t, familyNamed(t, "swarm"), sweepBudget(10_000, 1_000, 0), sim.RandomWalk{}, stats)
	stats.report(t, "swarm, random walk", time.Since(start))
}

// TestLinearizabilityFamilies checks every family, under both strategies,
// on fewer seeds: the families aim at the corners the swarm rarely reaches.
func TestLinearizabilityFamilies(t *testing.T) {
	n := sweepBudget(300, 100, 20)
	for _, strategy := range []sim.Strategy{sim.RandomWalk{}, sim.PCT{Depth: 3, Steps: 2000}} {
		start := time.Now()
		stats := newSweepStats()
		for _, f := range plan.KubeletFamilies() {
			sweep(t, f, n, strategy, stats)
		}
		stats.report(t, fmt.Sprintf("all families, %s", strategy), time.Since(start))
	}
}

// checkedHistory is the linearizability oracle's check, keeping the
// history and the verdict for the sweep's statistics.
type checkedHistory struct {
	rec *history.Recorder
	h   history.History
	v   linearize.Verdict
}

func (c *checkedHistory) Observe(_ oracle.View, ev *history.Event) { c.rec.Observe(ev) }

func (c *checkedHistory) Finish(oracle.View, error) []history.Violation {
	c.h = c.rec.History()
	c.v = linearize.CheckHistory(c.h, linearize.Options{})
	return c.v.Violations(c.h)
}
