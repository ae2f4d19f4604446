package world

import (
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/oracle"
	"github.com/podsim/podsim/plan"
)

// The world's side of liveness (SPEC §3.2, docs/design.md "Oracles" 4): the
// properties assume that sync functions eventually succeed, that
// housekeeping runs periodically and that time advances. So after the last
// client finished, the world heals the injected errors, lets SettleTime of
// virtual time pass with the sync loop and housekeeping still running,
// then stops every input and lets the workers drain; the liveness oracle
// judges at Settled what the history showed by then.

// daemonLoop runs tick every period, as the kubelet's sync loop and
// housekeeping do, until the world quiesces; the last daemon to stop fires
// daemonsDone. Sleeping first keeps the schedule a pure function of the
// period: ticks at period, 2·period, … of virtual time.
func (w *World) daemonLoop(period time.Duration, tick func()) {
	for {
		w.S.Sleep(w.quiet.NextTick(w.S.Elapsed(), period))
		if w.quiescing {
			if w.daemons--; w.daemons == 0 {
				w.daemonsDone.Fire()
			}
			return
		}
		w.iteration(tick)
	}
}

// perform is a client doing one plan action: the kubelet's sync loop runs
// config delivery (ADD, UPDATE, DELETE, REMOVE), work-queue and PLEG syncs
// and housekeeping one at a time (syncLoopIteration, SPEC §2, §1.12), so
// housekeeping's desired pods are never stale against a concurrent ADD or
// REMOVE (which would purge or kill a pod the config source has just
// added). Kills with options (eviction, preemption, node shutdown) and
// queries come from actors of their own and interleave freely.
func (w *World) perform(a plan.Action) {
	switch a.Kind {
	case plan.Kill, plan.KillNow, plan.Query:
		w.do(a)
	default:
		w.iteration(func() { w.do(a) })
	}
}

// iteration runs f as one iteration of the sync loop.
func (w *World) iteration(f func()) {
	w.syncLoop.Lock()
	defer w.syncLoop.Unlock()
	f()
}

// settle is the driver's work between the last client and Settled.
//
// SettleTime = 4 min = 240 s covers, one after another, the longest chain
// of waits a plan can leave pending when its last client finishes. Grace
// periods are at most 60 s in every family (overrides 45 s, so killPodNow
// waits up to max(10 s, 1.5 × 45 s) = 67 s; 45 s in swarm):
//
//	killPodNow's timeout                       0 s  a client finishes only after its killPodNow returned
//	the retry of an error in flight            16 s  1.5 × 10 s backoff + 1 s sync-loop tick (orphans: 2 s)
//	the termination itself                     65 s  a 60 s grace (a real SyncTerminatingPod may take it;
//	                                                 the fake one takes ≤ MaxDelay ≤ 5 s) + 5 s SyncTerminatedPod
//	purge and restart of a reused UID           7 s  2 s housekeeping + 5 s SyncPod
//	a static pod waiting for that full name    21 s  1.5 × 10 s backoff + 1 s tick + 5 s SyncPod
//	one resync of every running pod            91 s  1.5 × 1 min + 1 s tick
//	                                          ─────
//	                                          200 s ≤ 240 s
//
// In the error-shapes family the retry of the error in flight may wait for
// a BackoffError clamped to the resync interval, 91 s instead of 16 s; its
// graces are at most 10 s and its pods not static, so its chain is
// 91 + 15 + 7 + 91 = 204 s ≤ 240 s.
//
// The resync is there so that whatever only a resync delivers (natural
// completion, a config change a lost update would hide) has happened too.
// Then the daemons stop (≤ one housekeeping period) and the workers drain
// (drainTime), so "quiescent" in the oracle means: no input for a while.
//
// The phase ends early, with the same verdict, once housekeeping finds the
// world quiescent: nothing could change any more (world/quiet). In
// most runs that is a few ticks after QuietFor, not SettleTime.
func (w *World) settle() {
	// SPEC §3.2 assumes sync functions eventually succeed: the injected
	// errors end with the plan; slow calls and ignored cancellation go on.
	w.Runtime.Faults.ErrorRate = 0
	healedAt := w.S.Elapsed()
	if w.settleQuietly(SettleTime) && w.quiet.Rules.Full {
		w.S.Sleep(healedAt + SettleTime - w.S.Elapsed())
	}
	w.quiescing = true
	quiesceAt := w.S.Elapsed()
	w.daemonsDone.Wait()
	w.S.Sleep(drainTime(w.plan.Faults))
	w.settleTimes = &w.fixed.settle // in the world's allocation
	*w.settleTimes = oracle.Settle{HealedAt: healedAt, QuiesceAt: quiesceAt, At: w.S.Elapsed(), Seq: w.seq}
}

// drainTime bounds what a worker does by itself after its last input: the
// call in flight, the pending update's call, then SyncPod reporting
// natural completion, SyncTerminatingPod and SyncTerminatedPod (phase
// transitions replay without any input): five calls, each at most
// MaxDelay (or one scheduling point).
func drainTime(f plan.Faults) time.Duration {
	return 5 * max(f.MaxDelay, time.Second)
}

// configOf is the config source's view of uid (the zero value if the plan
// never named it).
func (w *World) configOf(uid types.UID) oracle.PodConfig {
	p := w.pod(uid)
	if p == nil {
		return oracle.PodConfig{}
	}
	return oracle.PodConfig{InConfig: p.inConfig, Deleted: p.deletion != nil, Static: p.action.Static, FullName: p.fullName(),
		Terminal: terminalPhase(p.phase), Rejected: p.rejected}
}
