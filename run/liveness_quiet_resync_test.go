package run

import (
	"fmt"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/model/ops"
	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/workers"
	"github.com/podsim/podsim/world"
	"github.com/podsim/podsim/world/fakeruntime"
)

// lvHangingResync is a syncer whose SyncPods of uid after the first
// successful one never return in time: a resync that is not a repeat. It
// reports its calls to the World as the fake runtime does.
type lvHangingResync struct {
	workers.Syncer
	w      *world.World
	uid    types.UID
	synced int
}

func lvHangResync(uid types.UID) *lvPlant {
	return &lvPlant{syncer: func(w *world.World, inner workers.Syncer) workers.Syncer {
		return &lvHangingResync{Syncer: inner, w: w, uid: uid}
	}}
}

func (s *lvHangingResync) SyncPod(cancel workers.Event, ut workers.UpdateType, pod, mirror *v1.Pod, st *workers.PodStatus) (bool, error) {
	if pod.UID != s.uid || s.synced == 0 {
		terminal, err := s.Syncer.SyncPod(cancel, ut, pod, mirror, st)
		if err == nil && pod.UID == s.uid {
			s.synced++
		}
		return terminal, err
	}
	c := fakeruntime.CallInfo{Fn: ops.SyncPod, UpdateType: ut, Pod: pod, Cancel: cancel}
	s.w.CallBegin("SyncPod", pod.UID, c)
	s.w.S.Sleep(time.Hour)
	s.w.CallEnd("SyncPod", pod.UID, c, nil, false)
	return false, nil
}

// resyncRun runs plan on p's wrappers with every oracle; careless swaps
// the resync rule for one that trusts any syncer and world.
func resyncRun(pl plan.Plan, p *lvPlant, full, careless bool) (string, *world.World) {
	w := lvWorld(pl, p)
	w.SetSettleRules(world.SettleRules{Full: full, CarelessResync: careless, TickIdle: true})
	return fmt.Sprintf("%q", verdictOf(judge(plan.Family{Name: "planted"}, 7, w, CheckOptions{}, nil))), w
}

// TestQuietSettleResync: a pod left running no longer keeps the settle
// phase going when its resync can only repeat, with the full phase's
// verdict; a syncer whose resync hangs keeps it going (same verdict: the
// hung call is in flight at Settled), and the careless rule, which
// trusts that syncer, ends early and loses that verdict.
func TestQuietSettleResync(t *testing.T) {
	running := lvPlan(lvAct(0, plan.Create, "a"), lvAct(time.Second, plan.Update, "a"))
	quick, w := resyncRun(running, nil, false, false)
	full, _ := resyncRun(running, nil, true, false)
	if at, quiet := w.QuietAt(); !quiet || at >= world.SettleTime/2 {
		t.Errorf("a running pod: quiet %v at %v, want the settle phase to end well before %v", quiet, at, world.SettleTime)
	}
	if quick != full {
		t.Errorf("a running pod: early end gives %s, want the full phase's %s", quick, full)
	}

	hang, created := lvHangResync("a"), lvPlan(lvAct(0, plan.Create, "a"))
	full, _ = resyncRun(created, hang, true, false)
	quick, w = resyncRun(created, hang, false, false)
	if _, quiet := w.QuietAt(); quiet || quick != full {
		t.Errorf("a hanging resync: quiet %v, verdict %s, want no early end and the full phase's %s", quiet, quick, full)
	}
	if full == `[""]` {
		t.Fatalf("a hanging resync: the full phase found nothing, want the call in flight at Settled (L3)")
	}
	if careless, w := resyncRun(created, hang, false, true); careless == full || !quietOf(w) {
		t.Errorf("the careless rule (quiet %v) gave the full phase's verdict %s: the test cannot tell a wrong rule", quietOf(w), careless)
	}
}
