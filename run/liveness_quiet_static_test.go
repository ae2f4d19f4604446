package run

import (
	"fmt"
	"maps"
	"slices"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/model/ops"
	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/sim"
	"github.com/podsim/podsim/workers"
	"github.com/podsim/podsim/world"
	"github.com/podsim/podsim/world/fakeruntime"
)

// lvHolderEnds is a syncer under which holder's second SyncPod reports
// natural completion (a resync that ends the pod by itself) and every
// SyncPod of waiter hangs: once the holder is gone, the waiter starts and
// is left with a call in flight. It reports its calls to the World as the
// fake runtime does.
type lvHolderEnds struct {
	workers.Syncer
	w              *world.World
	holder, waiter types.UID
	synced         int
}

func lvHolderEnding(holder, waiter types.UID) *lvPlant {
	return &lvPlant{syncer: func(w *world.World, inner workers.Syncer) workers.Syncer {
		return &lvHolderEnds{Syncer: inner, w: w, holder: holder, waiter: waiter}
	}}
}

func (s *lvHolderEnds) SyncPod(cancel workers.Event, ut workers.UpdateType, pod, mirror *v1.Pod, st *workers.PodStatus) (bool, error) {
	c := fakeruntime.CallInfo{Fn: ops.SyncPod, UpdateType: ut, Pod: pod, Cancel: cancel}
	switch {
	case pod.UID == s.waiter:
		s.w.CallBegin("SyncPod", pod.UID, c)
		s.w.S.Sleep(time.Hour)
		s.w.CallEnd("SyncPod", pod.UID, c, nil, false)
		return false, nil
	case pod.UID == s.holder && s.synced > 0:
		s.w.CallBegin("SyncPod", pod.UID, c)
		s.w.Runtime.SetRunning(pod.UID, 0)
		s.w.CallEnd("SyncPod", pod.UID, c, nil, true)
		return true, nil
	}
	terminal, err := s.Syncer.SyncPod(cancel, ut, pod, mirror, st)
	if err == nil && pod.UID == s.holder {
		s.synced++
	}
	return terminal, err
}

// waiterRun runs the plan of a static waiter behind a running holder on
// p's wrappers (nil: none) under rules, with every oracle.
func waiterRun(pl plan.Plan, p *lvPlant, rules world.SettleRules) (string, *world.World) {
	w := lvWorld(pl, p)
	rules.TickIdle = true
	w.SetSettleRules(rules)
	return fmt.Sprintf("%q", verdictOf(judge(plan.Family{Name: "planted"}, 7, w, CheckOptions{}, nil))), w
}

// TestQuietSettleWaiter: a static pod waiting for the full name of a
// running holder no longer keeps the settle phase going: its retries are
// proven repeats, so the phase ends early with the full phase's verdict.
// The rule must not hide a holder that ends by itself: under a syncer
// whose resync ends the holder (and whose SyncPod of the waiter then
// hangs) the phase runs in full with the full phase's verdict, and the
// careless rule that trusts that syncer ends early and loses it.
func TestQuietSettleWaiter(t *testing.T) {
	waiting := lvPlan(lvStatic(lvAct(0, plan.Create, "a")), lvStatic(lvAct(time.Second, plan.Create, "b")))
	quick, w := waiterRun(waiting, nil, world.SettleRules{})
	full, _ := waiterRun(waiting, nil, world.SettleRules{Full: true})
	if at, quiet := w.QuietAt(); !quiet || at >= world.SettleTime/2 || w.RepeatedRetries() == 0 {
		t.Errorf("a waiter behind a running holder: quiet %v at %v after %d repeated retries, want an early end after some",
			quiet, at, w.RepeatedRetries())
	}
	if n, held := waiterSyncs(waiting, "b"), waiterSyncs(waiting, "a"); n != 0 || held == 0 {
		t.Errorf("a waiter behind a running holder: got %d SyncPods of the waiter and %d of the holder, want none and some", n, held)
	}
	if quick != full {
		t.Errorf("a waiter behind a running holder: early end gives %s, want the full phase's %s", quick, full)
	}

	ends := lvHolderEnding("a", "b")
	full, _ = waiterRun(waiting, ends, world.SettleRules{Full: true})
	quick, w = waiterRun(waiting, ends, world.SettleRules{})
	if quietOf(w) || quick != full {
		t.Errorf("a holder that ends: quiet %v, verdict %s, want no early end and the full phase's %s", quietOf(w), quick, full)
	}
	if full == `["<nil>"]` {
		t.Fatalf("a holder that ends: the full phase found nothing, want the waiter's call in flight at Settled (L3)")
	}
	if careless, w := waiterRun(waiting, ends, world.SettleRules{CarelessResync: true}); careless == full || !quietOf(w) {
		t.Errorf("the careless rule (quiet %v) gave the full phase's verdict %s: the test cannot tell a wrong rule", quietOf(w), careless)
	}
}

// TestQuietTicksKeptForRetries: while a waiter's retry falls due in the
// wait for world.QuietFor the quiet ticks are kept, and the runs end as
// the run that ticks throughout does; skipping them anyway (SkipRetries)
// draws the later retries' jitter from other schedule choices and moves
// some run's quiet tick.
func TestQuietTicksKeptForRetries(t *testing.T) {
	f, _ := plan.FamilyNamed("static-fullname-chain")
	seeds := quietSeedCount(150, 40)
	moved := 0
	for seed := range seeds {
		run := func(r world.SettleRules) ([]string, *world.World) {
			st := plan.SeedStreams(seed)
			w := world.NewWorld(f.Generate(st.Plan), st.Schedule, st.Faults, sim.RandomWalk{})
			r.TickIdle = true
			w.SetSettleRules(r)
			return verdictOf(judge(f, seed, w, CheckOptions{}, nil)), w
		}
		kept, wk := run(world.SettleRules{})
		ticked, wt := run(world.SettleRules{TickAll: true})
		if !slices.Equal(kept, ticked) || !sameEnd(wk, wt) || !maps.Equal(wk.Marks(), wt.Marks()) {
			t.Fatalf("seed %d: keeping the retries' ticks gives %q, quiet at %v; ticking gives %q, quiet at %v",
				seed, kept, quietTime(wk), ticked, quietTime(wt))
		}
		if skipped, ws := run(world.SettleRules{SkipRetries: true}); !slices.Equal(skipped, ticked) || !sameEnd(ws, wt) {
			moved++
		}
	}
	if moved == 0 {
		t.Error("skipping the retries' ticks changed no run: the comparison cannot tell why they are kept")
	}
	t.Logf("skipping the retries' ticks moved the end of %d of %d runs", moved, seeds)
}

// TestQuietSettlePastEnd: a queued entry due after the settle phase's end
// never fires, so it no longer keeps the phase going (seeds of the
// families with natural completion end early with the full phase's
// verdict that did not before); the horizon must be the phase's end: a
// resync that hangs within the phase keeps it going (same verdict), and a
// careless horizon (world.QuietFor from now) ends early and loses it.
func TestQuietSettlePastEnd(t *testing.T) {
	gained := 0
	for _, name := range []string{"swarm-restart", "eviction-wait", "rejected-admission"} {
		f, _ := plan.FamilyNamed(name)
		for seed := range quietSeedCount(60, 20) {
			st := plan.SeedStreams(seed)
			wk := world.NewWorld(f.Generate(st.Plan), st.Schedule, st.Faults, sim.RandomWalk{})
			wk.SetSettleRules(world.SettleRules{KeepPastSettle: true, TickIdle: true})
			judge(f, seed, wk, CheckOptions{}, nil)
			if quietOf(wk) {
				continue
			}
			quick, full, qm, fm, _, wq, _ := settlePair(f, seed, "")
			if !quietOf(wq) {
				continue
			}
			gained++
			if !sameSettleVerdict(quick, full, qm, fm) {
				t.Fatalf("%s seed %d: ending past the last entry gives %q %q, the full phase %q %q", name, seed, quick, qm, full, fm)
			}
		}
	}
	if gained == 0 {
		t.Error("no seed ended early only because its entries fall due past the end: the rule was not exercised")
	}
	t.Logf("%d seeds ended early only through entries due past the end", gained)

	created, hang := lvPlan(lvAct(0, plan.Create, "a")), lvHangResync("a")
	full, _ := resyncRun(created, hang, true, false)
	w := lvWorld(created, hang)
	w.SetSettleRules(world.SettleRules{CarelessHorizon: true, TickIdle: true})
	careless := fmt.Sprintf("%q", verdictOf(judge(plan.Family{Name: "planted"}, 7, w, CheckOptions{}, nil)))
	if careless == full || !quietOf(w) {
		t.Errorf("the careless horizon (quiet %v) gave the full phase's verdict %s: the test cannot tell a wrong horizon", quietOf(w), careless)
	}
}

// waiterSyncs runs pl with the early end and counts the SyncPods of uid
// that began.
func waiterSyncs(pl plan.Plan, uid types.UID) int {
	w, n := lvWorld(pl, nil), 0
	w.Observe(func(ev history.Event) {
		if b, ok := ev.Input.(ops.SyncBegin); ok && ev.Kind == history.CallbackBegin && b.Fn == ops.SyncPod && b.UID == string(uid) {
			n++
		}
	})
	judge(plan.Family{Name: "planted"}, 7, w, CheckOptions{}, nil)
	return n
}
