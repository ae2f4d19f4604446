package run

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/sim"
	"github.com/podsim/podsim/world"
)

// settleRun runs one seed of f with every oracle; full keeps the whole
// settle phase even once the world is quiet. It returns the verdict (the
// scheduler's error and every violation, as text) and when the world went
// quiet (0: never).
func settleRun(f plan.Family, seed uint64, full bool) ([]string, *world.World) {
	st := plan.SeedStreams(seed)
	w := world.NewWorld(f.Generate(st.Plan), st.Schedule, st.Faults, sim.RandomWalk{})
	w.SetSettleRules(world.SettleRules{Full: full})
	return verdictOf(judge(f, seed, w, CheckOptions{}, nil)), w
}

// verdictOf is a result as text, for comparing a run that ended its settle
// phase early with one that did not: the scheduler's error and every
// violation, with where it happened, except the time and event of the
// liveness oracle's, which judges at Settled (earlier with the early end).
func verdictOf(r Result) []string {
	verdict := []string{fmt.Sprint(r.Err)}
	for _, v := range r.Violations {
		if v.Oracle == "liveness" {
			v.At, v.Seq = 0, 0
		}
		verdict = append(verdict, fmt.Sprintf("%s %s %v #%d: %s", v.Oracle, v.Invariant, v.At, v.Seq, v.Message))
	}
	return verdict
}

// TestQuietSettleSameVerdict: ending the settle phase once the world is
// quiescent gives the verdict of the full phase. Both runs are the same
// run until the quiet tick (the check is the same in both); the full one
// then goes on for the rest of SettleTime.
func TestQuietSettleSameVerdict(t *testing.T) {
	seeds := uint64(150)
	if testing.Short() {
		seeds = 25
	}
	for _, f := range plan.KubeletFamilies() {
		t.Run(f.Name, func(t *testing.T) {
			early := 0
			for seed := range seeds {
				quick, wq := settleRun(f, seed, false)
				full, wf := settleRun(f, seed, true)
				if !slices.Equal(quick, full) {
					t.Fatalf("seed %d: verdict with the early end (quiet at %v)\n  %q\ndiffers from the full settle phase\n  %q",
						seed, quietTime(wq), quick, full)
				}
				if quietOf(wq) != quietOf(wf) || quietTime(wq) != quietTime(wf) {
					t.Fatalf("seed %d: the runs diverged before the quiet tick (%v at %v, %v at %v)",
						seed, quietOf(wq), quietTime(wq), quietOf(wf), quietTime(wf))
				}
				if quietOf(wq) {
					early++
				}
			}
			t.Logf("%d of %d seeds ended the settle phase early", early, seeds)
		})
	}
}

// settleEnd is how a test ends the settle phase: quietly (the early end),
// in full, or carelessly (one second after it began, whatever the world
// is doing: what a wrong quiescence check would do).
type settleEnd int

const (
	endQuietly settleEnd = iota
	endInFull
	endCarelessly
)

// plantedVerdict runs a planted liveness situation with its fault, every
// oracle judging, and ends the settle phase as told. The careless daemon
// runs in every mode (so that the runs are the same run until an end) and
// ends the phase only when told to.
func plantedVerdict(pl plan.Plan, p *lvPlant, end settleEnd) string {
	w := lvWorld(pl, p)
	w.SetSettleRules(world.SettleRules{Full: end == endInFull})
	w.S.GoDaemon("careless", func() {
		for !w.Settling() {
			w.S.Sleep(time.Second)
		}
		w.S.Sleep(time.Second)
		if end == endCarelessly {
			w.EndSettle()
		}
	})
	return fmt.Sprintf("%q", verdictOf(judge(plan.Family{Name: "planted"}, 7, w, CheckOptions{}, nil)))
}

// TestQuietSettlePlanted: every planted liveness fault (TestLivenessPlanted)
// gets the same verdict with the early end as with the full settle phase,
// and the comparison can fail: a careless end changes some verdict.
func TestQuietSettlePlanted(t *testing.T) {
	differ := 0
	for _, tt := range livenessPlanted {
		p := tt.situation.with(tt.fault)
		full := plantedVerdict(tt.plan, p, endInFull)
		if quick := plantedVerdict(tt.plan, p, endQuietly); quick != full {
			t.Errorf("%s: with the early end got %s, want the full phase's %s", tt.name, quick, full)
		}
		if plantedVerdict(tt.plan, p, endCarelessly) != full {
			differ++
		}
	}
	if differ == 0 {
		t.Error("ending the settle phase after one second gave every planted fault the full phase's verdict: " +
			"the comparison cannot tell a premature end")
	}
	t.Logf("a careless end changes %d of %d verdicts", differ, len(livenessPlanted))
}

// TestQuietSettle: the run of TestWorldSettles without quiet.full ends the
// settle phase once still for world.QuietFor, with the same final state; a busy
// predicate that never clears keeps the full phase.
func TestQuietSettle(t *testing.T) {
	run := func(busy bool) *world.World {
		pl := lvPlan(lvAct(0, plan.Create, "a"), lvAct(time.Second, plan.Remove, "a"))
		pl.Faults = plan.Faults{ErrorRate: 1000}
		st := plan.SeedStreams(3)
		w := world.NewWorld(pl, st.Schedule, st.Faults, sim.RandomWalk{})
		if busy {
			w.KeepBusy(func() bool { return true })
		}
		w.Observe((&settleCounter{w: w}).Observe)
		if err := w.Run(); err != nil {
			t.Fatalf("run: got %v, want no error", err)
		}
		return w
	}
	w := run(false)
	switch f := w.View().Final(); {
	case !quietOf(w):
		t.Fatal("the world never went quiet, want it quiet once the orphan is purged")
	case f.QuiesceAt-f.HealedAt < world.QuietFor || f.QuiesceAt-f.HealedAt >= world.SettleTime:
		t.Errorf("got a settle phase of %v, want at least world.QuietFor (%v) and less than SettleTime", f.QuiesceAt-f.HealedAt, world.QuietFor)
	case len(f.Pods) != 0:
		t.Errorf("got final records %v, want none", f.Pods)
	}
	if w := run(true); quietOf(w) || w.View().Final().QuiesceAt-w.View().Final().HealedAt != world.SettleTime {
		t.Errorf("with a busy actor: got quiet %v, settle phase %v, want the full %v", quietOf(w),
			w.View().Final().QuiesceAt-w.View().Final().HealedAt, world.SettleTime)
	}
}

// quietOf reports whether w's settle phase ended early, quiescent.
func quietOf(w *world.World) bool {
	_, quiet := w.QuietAt()
	return quiet
}

// quietTime is when w's settle phase ended early (0 if it did not).
func quietTime(w *world.World) time.Duration {
	at, _ := w.QuietAt()
	return at
}
