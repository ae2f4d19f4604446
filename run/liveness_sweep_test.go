package run

import (
	"testing"
	"time"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/oracle/liveness"
	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/sim"
	"github.com/podsim/podsim/world"
)

// TestLivenessSwarmNoFalseAlarms: the correct pod workers settle in every
// swarm run: 2,000 seeds (200 with -short) through RunSeed, with no
// liveness violation and no scheduler error. Other oracles' findings are
// theirs to judge and are only counted here.
func TestLivenessSwarmNoFalseAlarms(t *testing.T) {
	n := sweepBudget(2000, 500, 200)
	f := plan.Family{Name: "swarm", Generate: plan.GenerateSwarm}
	start, others := time.Now(), 0
	for seed := uint64(0); seed < n; seed++ {
		r := RunSeed(f, seed, sim.RandomWalk{}, CheckOptions{})
		if r.Err != nil {
			t.Fatalf("seed %d: got run error %v, want none\n%v", seed, r.Err, f.Generate(plan.SeedStreams(seed).Plan))
		}
		for _, v := range r.Violations {
			if v.Oracle == "liveness" {
				t.Fatalf("seed %d: got %v, want no liveness violation\n%v", seed, v, f.Generate(plan.SeedStreams(seed).Plan))
			}
			others++
		}
	}
	t.Logf("%d swarm seeds settled in %v (%d findings of other oracles)", n, time.Since(start), others)
}

// TestLivenessSwarmChecksEveryInvariant: the sweep is not vacuous: over
// 200 swarm seeds every one of L1–L8 finds obligations that were met.
func TestLivenessSwarmChecksEveryInvariant(t *testing.T) {
	total := map[string]int{}
	for seed := uint64(0); seed < 200; seed++ {
		st := plan.SeedStreams(seed)
		w := world.NewWorld(plan.GenerateSwarm(st.Plan), st.Schedule, st.Faults, sim.RandomWalk{})
		o, view := livenessOracle(), w.View()
		w.Observe(func(ev history.Event) { o.Observe(view, &ev) })
		err := w.Run()
		if vs := o.Finish(view, err); err != nil || len(vs) != 0 {
			t.Fatalf("seed %d: got error %v and violations %v, want neither", seed, err, vs)
		}
		for k, v := range liveness.Checked(o) {
			total[k] += v
		}
	}
	for _, inv := range []string{"L1", "L2", "L3", "L4", "L5", "L6", "L7", "L8", "L9"} {
		if total[inv] == 0 {
			t.Errorf("got 0 %s obligations met over 200 seeds, want some", inv)
		}
	}
	t.Logf("obligations met over 200 seeds: %v", total)
}

// TestWorldSettles: the end of a run as the liveness oracle needs it —
// housekeeping ran periodically, the injected errors healed for the settle
// phase, the inputs stopped, the workers drained with nothing after that
// before Settled, and no record was left. The settle phase runs in full (quiet.full); TestQuietSettle
// checks its early end.
func TestWorldSettles(t *testing.T) {
	pl := lvPlan(lvAct(0, plan.Create, "a"), lvAct(time.Second, plan.Remove, "a"))
	pl.Faults = plan.Faults{ErrorRate: 1000}
	st := plan.SeedStreams(3)
	w := world.NewWorld(pl, st.Schedule, st.Faults, sim.RandomWalk{})
	w.SetSettleRules(world.SettleRules{Full: true})
	c := &settleCounter{w: w}
	w.Observe(c.Observe)
	if err := w.Run(); err != nil {
		t.Fatalf("run: got %v, want no error", err)
	}
	f := w.View().Settle()
	switch {
	case f == nil:
		t.Fatal("got no settle phase timing, want one")
	case c.syncKnown < int((world.SettleTime)/world.HousekeepingPeriod):
		t.Errorf("got %d SyncKnownPods, want at least one per housekeeping period of the settle phase (%d)", c.syncKnown, world.SettleTime/world.HousekeepingPeriod)
	case f.QuiesceAt-f.HealedAt != world.SettleTime:
		t.Errorf("got a settle phase of %v, want %v", f.QuiesceAt-f.HealedAt, world.SettleTime)
	case c.afterQuiesce != 0:
		t.Errorf("got %d client calls after the inputs stopped, want 0", c.afterQuiesce)
	case c.settledSeq != f.Seq+1:
		t.Errorf("got Settled at event %d, want %d, right after the drain", c.settledSeq, f.Seq+1)
	case c.lastProbe == nil || len(c.lastProbe.KnownUIDs()) != 0:
		t.Errorf("got records of %v at the last release of the pod lock, want none: the errors heal and housekeeping purges the finished orphan",
			c.lastProbe.KnownUIDs())
	}
}

type settleCounter struct {
	w                       *world.World
	syncKnown, afterQuiesce int
	settledSeq              int64
	lastProbe               *history.Probe // on the last LockReleasing
}

func (c *settleCounter) Observe(ev history.Event) {
	switch ev.Kind {
	case history.ClientCall:
		if c.w.Quiescing() {
			c.afterQuiesce++
		}
		if ev.Goroutine == "housekeeping" {
			c.syncKnown++
		}
	case history.LockReleasing:
		if ev.Probe != nil {
			c.lastProbe = ev.Probe
		}
	case history.Settled:
		c.settledSeq = ev.Seq
	}
}
