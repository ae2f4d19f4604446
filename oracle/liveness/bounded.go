package liveness

import (
	"fmt"
	"math"
	"time"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/model/ops"
	"github.com/podsim/podsim/oracle"
)

// L9, bounded take (issue 17): an UpdatePod that the pod workers accept is
// taken — a sync call for its pod begins, or the record finishes or is
// purged — within a bound of virtual time of the moment the pod had no
// call in flight any more (an update that arrives while a call runs is
// taken by the next call, SPEC §1.8). "Eventually" is not enough: an update
// left pending and only rescued by the periodic resync (a minute later) is
// the bug this catches. The bound depends on the kind of update:
//
//	kill (a kill update, or one that makes the pod terminating: deleted,
//	     terminal phase)                         Periods.TakeKill
//	any other update (create, update, sync)      Periods.TakeUpdate
//
// Updates the workers ignore by contract are not owed: a runtime-only
// update that is not a kill (§1.4 step 1), any update of a finished record
// (only a create matters there, and L4 bounds its restart), and an update of
// a static pod that has not begun SyncPod in this incarnation (it may wait
// for its full name: L3 and L5 judge it).

// takeDue is the oldest update of a pod not yet taken. It is tracked
// whether or not the target states take bounds: one still open at Settled
// is a pending update that was never consumed (L3, judge.go).
type takeDue struct {
	kill      bool
	typ       ops.UpdateType // of the newest update it stands for
	at        time.Duration  // when the update took effect
	idleSince time.Duration  // when no call was in flight any more (unset while one is)
	updates   int            // how many updates it stands for (merged, §1.5)
	reported  bool           // L9 reported it: once is the story
}

// bound is the time the update may wait once its pod is idle.
func (l *liveness) takeBound(d *takeDue) time.Duration {
	if d.kill {
		return l.periods.TakeKill
	}
	return l.periods.TakeUpdate
}

// takeEnabled: a target that states no take bounds is not judged on L9
// (its updates are still tracked, for L3 at Settled).
func (l *liveness) takeEnabled() bool { return l.periods.TakeKill > 0 && l.periods.TakeUpdate > 0 }

// updateTookEffect opens the obligation of an UpdatePod whose critical
// section just ended (p.cur holds the answers it left).
func (l *liveness) updateTookEffect(p *podTrack, in ops.UpdatePod, ev *history.Event) {
	l.takesAfter = unset // an obligation opens, or its bound shrinks (a kill)
	if !p.cur.Known || p.cur.BeFinished {
		return
	}
	kill := in.Type == ops.Kill || in.Pod.DeletionTimestamp || in.Pod.Phase.Terminal()
	switch {
	case in.RuntimeOnly && in.Type != ops.Kill:
		return
	case in.Pod.Static && p.calls.get(ops.SyncPod) == nil:
		return
	}
	if p.due != nil {
		p.due.kill = p.due.kill || kill
		p.due.typ = in.Type
		p.due.updates++
		return
	}
	p.dueHeld = takeDue{kill: kill, typ: in.Type, at: ev.At, idleSince: ev.At, updates: 1}
	p.due = &p.dueHeld
	l.dues++
	if p.busy() {
		p.due.idleSince = unset
	}
}

// inFlightFn names the sync call in flight (for a busy pod).
func (p *podTrack) inFlightFn() ops.SyncFn {
	for _, fn := range []ops.SyncFn{ops.SyncPod, ops.SyncTerminatingPod, ops.SyncTerminatingRuntimePod, ops.SyncTerminatedPod} {
		if st := p.calls.get(fn); st != nil && st.inFlight {
			return fn
		}
	}
	return ops.NoSync
}

// busy reports whether a sync call of the pod is in flight.
func (p *podTrack) busy() bool {
	return p.calls.busy()
}

// taken discharges the obligation: a call began, or the record finished or
// went. It notes the longest wait seen, per kind, for the bounds' test.
func (l *liveness) taken(p *podTrack, ev *history.Event) {
	d := p.due
	if d == nil {
		return
	}
	p.due, l.dues = nil, l.dues-1
	if d.reported || !l.takeEnabled() {
		return
	}
	l.checked[9]++
	if d.idleSince == unset {
		return
	}
	k := 0
	if d.kill {
		k = 1
	}
	l.maxTake[k], l.tookKind[k] = max(l.maxTake[k], ev.At-d.idleSince), true
}

// callEnded starts the clock of an obligation that waited for a call.
func (p *podTrack) callEnded(at time.Duration) {
	if p.due != nil && p.due.idleSince == unset && !p.busy() {
		p.due.idleSince = at
	}
}

// checkTakes reports every obligation whose bound passed before ev. A
// walk over the pods notes the earliest bound still ahead (takesAfter):
// until an event is later than it, no bound passes, and nothing is walked,
// unless an obligation's bound came earlier since (a new obligation, a
// kill merged into one, a pod gone idle, a failed call's error replaced or
// cleared: each sets takesAfter unset).
func (l *liveness) checkTakes(ev *history.Event) {
	// No obligation open (most events of a run), or no bound passed since
	// the last walk.
	if l.dues != 0 && ev.At > l.takesAfter {
		l.walkTakes(ev)
	}
}

// walkTakes is checkTakes' walk over the pods (none for a target that
// states no take bounds).
func (l *liveness) walkTakes(ev *history.Event) {
	if !l.takeEnabled() {
		return
	}
	next := time.Duration(math.MaxInt64)
	for _, p := range l.tracks {
		uid := p.uid
		d := p.due
		if d == nil || d.reported || d.idleSince == unset {
			continue
		}
		from := d.idleSince
		if p.err != nil {
			// The next retry of a failed call may come no sooner.
			from = max(from, p.err.retryFrom)
		}
		if ev.At <= from+l.takeBound(d) {
			next = min(next, from+l.takeBound(d))
			continue
		}
		kind := "update"
		if d.kill {
			kind = "kill"
		}
		l.violate("L9", ev, "pod %s (%s): %s at %v (%d update(s), idle since %v) not taken by %v: no sync call began, "+
			"and it neither finished nor was purged (bound %v%s)", uid, p.state(p.cur), kind, d.at, d.updates, d.idleSince,
			from+l.takeBound(d), l.takeBound(d), retryWord(from, d.idleSince))
		d.reported = true // once is the story; L3 still sees it pending at Settled
	}
	l.takesAfter = next
}

// retryWord says when the bound counted from the end of a backoff's wait.
func retryWord(from, idleSince time.Duration) string {
	if from == idleSince {
		return ""
	}
	return fmt.Sprintf(", from %v, when the last failed call's BackoffError wait ended", from)
}

// MaxTake is the longest wait, per kind ("update", "kill"), between a pod
// going idle and the take of its pending update, over the obligations o
// (from New) saw met.
func MaxTake(o oracle.Oracle) map[string]time.Duration {
	l, out := o.(*liveness), map[string]time.Duration{}
	for k, took := range l.tookKind {
		if took {
			out[takeKinds[k]] = l.maxTake[k]
		}
	}
	return out
}

// takeKinds name the kinds of maxTake.
var takeKinds = [2]string{"update", "kill"}

// backoffRetry is the latest a failed call's requeue falls due when its
// error holds BackoffErrors (SPEC §1.8 step 5): the time to the earliest
// expiry from the call's end at, clamped to [0, resync], jittered ×1.5.
// RetryWithin covers the ordinary backoff only; L8 and L9 count from here.
func backoffRetry(e ops.ErrShape, at, resync time.Duration) time.Duration {
	return at + min(max(e.BackoffExpiry-at, 0), resync)*3/2
}
