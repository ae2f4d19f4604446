package run

import (
	"slices"
	"testing"
	"time"

	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/sim"
	"github.com/podsim/podsim/world"
)

// skipMode is how a test's run treats the ticks of a still world.
type skipMode int

const (
	skipTicks      skipMode = iota // the quiet ticks are skipped (the default)
	tickAll                        // every tick runs
	skipCarelessly                 // skipped past due work-queue entries too (wrong)
)

// skipRun runs one seed of f with every oracle and the early end, its
// quiet ticks treated as told.
func skipRun(f plan.Family, seed uint64, mode skipMode) ([]string, *world.World) {
	w := settleWorld(f, seed, "", sim.RandomWalk{},
		world.SettleRules{TickAll: mode == tickAll, CarelessSkip: mode == skipCarelessly, TickIdle: true})
	return verdictOf(judge(f, seed, w, CheckOptions{}, nil)), w
}

// plannedSkipRun is skipRun for a scripted plan.
func plannedSkipRun(pl plan.Plan, mode skipMode) ([]string, *world.World) {
	w := lvWorld(pl, nil)
	w.SetSettleRules(world.SettleRules{TickAll: mode == tickAll, CarelessSkip: mode == skipCarelessly, TickIdle: true})
	return verdictOf(judge(plan.Family{Name: "planted"}, 7, w, CheckOptions{}, nil)), w
}

// sameEnd: two runs of a seed went quiet at the same tick and stopped
// their inputs and took the final state at the same time.
func sameEnd(a, b *world.World) bool {
	qa, fa := a.QuietAt()
	qb, fb := b.QuietAt()
	return fa == fb && qa == qb && a.View().Settle().QuiesceAt == b.View().Settle().QuiesceAt &&
		a.View().Settle().At == b.View().Settle().At
}

// TestQuietTicksSkipped: skipping the quiet ticks gives the run that ticks
// throughout its verdict, its quiet tick and its end, in fewer steps; the
// careless skip, which sleeps past a due resync, moves some quiet tick.
func TestQuietTicksSkipped(t *testing.T) {
	seeds := uint64(60)
	if testing.Short() {
		seeds = 15
	}
	fewer, careless, runs := 0, 0, 0
	for _, f := range plan.KubeletFamilies() {
		for seed := range seeds {
			runs++
			skipped, ws := skipRun(f, seed, skipTicks)
			ticked, wt := skipRun(f, seed, tickAll)
			if !slices.Equal(skipped, ticked) || !sameEnd(ws, wt) {
				t.Fatalf("%s seed %d: skipping gives %q, quiet at %v, end %v/%v; ticking gives %q, quiet at %v, end %v/%v",
					f.Name, seed, skipped, quietTime(ws), ws.View().Settle().QuiesceAt, ws.View().Settle().At, ticked, quietTime(wt), wt.View().Settle().QuiesceAt, wt.View().Settle().At)
			}
			if ws.S.Steps() < wt.S.Steps() {
				fewer++
			}
			if wrong, wc := skipRun(f, seed, skipCarelessly); !slices.Equal(wrong, ticked) || !sameEnd(wc, wt) {
				careless++
			}
		}
	}
	if fewer == 0 {
		t.Error("no run took fewer steps with the quiet ticks skipped: nothing was skipped")
	}
	for _, wait := range []time.Duration{40, 60, 70, 80} {
		// a runs; b's ADD ends the plan wait seconds later, so that a's
		// resync (a minute after its first SyncPod) may fall due while
		// the world waits for world.QuietFor.
		pl := lvPlan(lvAct(0, plan.Create, "a"), lvAct(wait*time.Second, plan.Create, "b"))
		runs++
		skipped, ws := plannedSkipRun(pl, skipTicks)
		ticked, wt := plannedSkipRun(pl, tickAll)
		if !slices.Equal(skipped, ticked) || !sameEnd(ws, wt) {
			t.Fatalf("b at %ds: skipping gives %q, quiet at %v; ticking gives %q, quiet at %v", wait, skipped, quietTime(ws), ticked, quietTime(wt))
		}
		if wrong, wc := plannedSkipRun(pl, skipCarelessly); !slices.Equal(wrong, ticked) || !sameEnd(wc, wt) {
			careless++
		}
	}
	if careless == 0 {
		t.Error("the careless skip changed no run: the comparison cannot tell a wrong skip")
	}
	t.Logf("%d of %d runs took fewer steps; the careless skip changed %d", fewer, runs, careless)
}
