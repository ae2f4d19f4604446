package run

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/plan"
)

// lvSecond is a second of virtual time, for short plans.
const lvSecond = time.Second

// livenessPlanted are the situations of TestLivenessPlanted.
var livenessPlanted = []struct {
	name      string
	plan      plan.Plan
	situation *lvPlant // in both runs (nil: the plain world)
	fault     *lvPlant // on top of it in the first
	want      string   // the invariant the fault breaks
	msg       []string // substrings of its message
}{{
	name:  "L1 kill never executed after the pod left config",
	plan:  lvPlan(lvAct(0, plan.Create, "a"), lvAct(lvSecond, plan.Remove, "a")),
	fault: lvFailing("SyncTerminatingPod", "a", -1),
	want:  "L1",
	msg:   []string{"pod a (not in config)", "termination requested at 1s, state T", "SyncTerminatingPod ran", "never succeeded"},
}, {
	name:  "L1 kill never executed after an eviction",
	plan:  lvPlan(lvAct(0, plan.Create, "a"), plan.Action{At: lvSecond, Kind: plan.Kill, UID: "a", SpecGrace: 30, Grace: 5, Evict: true}),
	fault: lvFailing("SyncTerminatingPod", "a", -1),
	want:  "L1",
	msg:   []string{"pod a (in config)", "state T", "never succeeded"},
}, {
	name:  "L2 terminated pod never finished",
	plan:  lvPlan(lvAct(0, plan.Create, "a"), lvAct(lvSecond, plan.Remove, "a")),
	fault: lvFailing("SyncTerminatedPod", "a", -1),
	want:  "L2",
	msg:   []string{"pod a (not in config)", "terminated at 1s, state D", "SyncTerminatedPod ran", "never succeeded"},
}, {
	name:  "L3 update never consumed (lost wake-up)",
	plan:  lvPlan(lvAct(0, plan.Create, "a"), lvAct(2*lvSecond, plan.Update, "a")),
	fault: lvLossy("a", 1, 1),
	want:  "L3",
	msg:   []string{"pod a (in config)", "state S", "is pending but was never consumed"},
}, {
	// Issue 17: a lost wake-up leaves the update pending; "eventually"
	// (the periodic resync, a minute on) is too late for L9's bound.
	name:  "L9 update not taken within the bound (lost wake-up)",
	plan:  lvPlan(lvAct(0, plan.Create, "a"), lvAct(2*lvSecond, plan.Update, "a")),
	fault: lvLossy("a", 1, 1),
	want:  "L9",
	msg:   []string{"pod a (S): update at 2s", "not taken by 20s", "(bound 18s)"},
}, {
	name:  "L4 restarted pod never synced",
	plan:  lvPlan(lvAct(0, plan.Create, "a"), lvAct(lvSecond, plan.Remove, "a"), lvAct(lvSecond, plan.Create, "a")),
	fault: lvLossy("a", 2, 0),
	want:  "L4",
	msg:   []string{"pod a (in config)", "purged at 2s for a restart", "re-created at 2s (state P), but SyncPod never ran"},
}, {
	name:  "L5 static waiter never started after the started pod finished",
	plan:  lvPlan(lvStatic(lvAct(0, plan.Create, "a")), lvStatic(lvAct(lvSecond, plan.Create, "b")), lvStatic(lvAct(3*lvSecond, plan.Remove, "a"))),
	fault: lvLossy("b", 1, 1),
	want:  "L5",
	msg:   []string{"pod b (static web_default)", "waiting to start since 1s (state P", "when pod a last changed", "SyncPod never ran"},
}, {
	name:  "L5 static waiter killed while waiting never exits",
	plan:  lvPlan(lvStatic(lvAct(0, plan.Create, "a")), lvStatic(lvAct(lvSecond, plan.Create, "b")), lvStatic(lvAct(3*lvSecond, plan.Kill, "b"))),
	fault: lvLossy("b", 1, 1),
	want:  "L5",
	msg:   []string{"pod b (static web_default, in config)", "killed at 3s while waiting to start (state TR)", "it never finished"},
}, {
	name:  "L6 killPodNow times out although the pod terminated",
	plan:  lvPlan(lvAct(0, plan.Create, "a"), plan.Action{At: lvSecond, Kind: plan.KillNow, UID: "a", SpecGrace: 30, Grace: 2}),
	fault: lvDeafKills(),
	want:  "L6",
	msg:   []string{"pod a: killPodNow (completion #1, waiting since 1s) returned an error at 11s", "could no longer run containers from 1s"},
}, {
	name:  "L7 deleted pod never finished",
	plan:  lvPlan(lvAct(0, plan.Create, "a"), plan.Action{At: lvSecond, Kind: plan.Delete, UID: "a", SpecGrace: 30, Grace: 5}),
	fault: lvFailing("SyncTerminatedPod", "a", -1),
	want:  "L7",
	msg: []string{"pod a (in config, deletion timestamp set)", "state D", "never reached ShouldPodBeFinished",
		"SyncTerminatedPod ran"},
}, {
	name:      "L8 failed sync never retried",
	plan:      lvPlan(lvAct(0, plan.Create, "a")),
	situation: lvFailing("SyncPod", "a", 1),
	fault:     lvForgetful("a"),
	want:      "L8",
	msg:       []string{"pod a (in config)", "SyncPod failed at 0s (state S)", "never retried"},
}}

// TestLivenessPlanted runs each situation twice: with a planted fault the
// liveness oracle must reject the run with the invariant and a message
// naming the pod, its state and what never happened; without the fault
// (the same plan, the same seed, the same situation) it must accept it,
// having checked the obligation (so the pass is not vacuous).
func TestLivenessPlanted(t *testing.T) {
	for _, tt := range livenessPlanted {
		t.Run(tt.name, func(t *testing.T) {
			_, bad := lvRun(t, tt.plan, tt.situation.with(tt.fault))
			t.Logf("with the fault: %v", bad)
			v, ok := lvFind(bad, tt.want)
			if !ok {
				t.Fatalf("with the fault: got violations %v, want one of %s", bad, tt.want)
			}
			for _, sub := range tt.msg {
				if !strings.Contains(v.Message, sub) {
					t.Errorf("with the fault: got message %q, want it to contain %q", v.Message, sub)
				}
			}
			o, good := lvRun(t, tt.plan, tt.situation)
			if len(good) != 0 {
				t.Fatalf("without the fault: got violations %v, want none", good)
			}
			if o[tt.want] == 0 {
				t.Errorf("without the fault: got 0 %s obligations checked, want some (checked: %v)", tt.want, o)
			}
		})
	}
}

// TestLivenessRetriedErrorsSettle: terminating and terminated calls that
// fail a few times and then succeed are retried and settle (L1, L2, L8
// "after transient errors"), including for a pod that left config, which
// only housekeeping re-drives (B11).
func TestLivenessRetriedErrorsSettle(t *testing.T) {
	for _, fn := range []string{"SyncPod", "SyncTerminatingPod", "SyncTerminatedPod"} {
		for _, kind := range []plan.ActionKind{plan.Remove, plan.Vanish, plan.Kill} {
			t.Run(fmt.Sprintf("%s %s", fn, kind), func(t *testing.T) {
				o, vs := lvRun(t, lvPlan(lvAct(0, plan.Create, "a"), lvAct(time.Minute, kind, "a")), lvFailing(fn, "a", 3))
				if len(vs) != 0 {
					t.Fatalf("got violations %v, want none", vs)
				}
				if o["L8"] < 3 {
					t.Errorf("got %d retries checked, want ≥ 3 (checked: %v)", o["L8"], o)
				}
			})
		}
	}
}

// TestLivenessStaticChainSettles: the static waiters of one full name start
// in turn as each predecessor finishes, and killed waiters are skipped
// (B8): nothing is reported, and the started entry was checked.
func TestLivenessStaticChainSettles(t *testing.T) {
	pl := lvPlan(lvStatic(lvAct(0, plan.Create, "a")), lvStatic(lvAct(lvSecond, plan.Create, "b")), lvStatic(lvAct(lvSecond, plan.Create, "c")),
		lvStatic(lvAct(2*lvSecond, plan.Remove, "b")), lvStatic(lvAct(3*lvSecond, plan.Remove, "a")))
	o, vs := lvRun(t, pl, nil)
	if len(vs) != 0 {
		t.Fatalf("got violations %v, want none", vs)
	}
	if o["L5"] == 0 {
		t.Errorf("got 0 L5 checks, want some (checked: %v)", o)
	}
}

// TestLivenessBlockedWaiterIsNotBlamed: a static waiter blocked by a
// predecessor that never finishes is not an L5 failure of its own; the
// predecessor is reported (L2).
func TestLivenessBlockedWaiterIsNotBlamed(t *testing.T) {
	pl := lvPlan(lvStatic(lvAct(0, plan.Create, "a")), lvStatic(lvAct(lvSecond, plan.Create, "b")), lvStatic(lvAct(3*lvSecond, plan.Remove, "a")))
	_, vs := lvRun(t, pl, lvFailing("SyncTerminatedPod", "a", -1))
	if _, ok := lvFind(vs, "L2"); !ok {
		t.Errorf("got violations %v, want L2 for pod a", vs)
	}
	if v, ok := lvFind(vs, "L5"); ok {
		t.Errorf("got %v, want no L5: pod b is legitimately blocked", v)
	}
}

func lvFind(vs []history.Violation, invariant string) (history.Violation, bool) {
	for _, v := range vs {
		if v.Invariant == invariant {
			return v, true
		}
	}
	return history.Violation{}, false
}
