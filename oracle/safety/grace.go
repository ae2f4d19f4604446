package safety

import (
	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/model/ops"
)

// This file holds the checks that need the delivered inputs of an
// incarnation: S11 grace, S12 latest wins, S15 static exclusion.

// checkGrace is S11: "Successive grace values passed to SyncTerminatingPod
// are non-increasing, ≥1, never nil; first value = min(DeletionGracePeriod-
// Seconds, overrides seen) if any was given (an explicit 0 yields 1), else
// spec grace." The first value is compared with the effective grace of
// SPEC §1.7 as of the critical section that acknowledged termination (the
// one the workers read it in): the value the first request started from
// (the smallest given, else the spec's), lowered by every later input
// while the pod was terminating. (S11's wording reads "min of all values
// seen"; a later override above the spec grace of a kill that gave none
// does not raise it, §1.7 "once set, never increases".)
func (o *safetyOracle) checkGrace(inc *safetyInc, call *safetyCall, ev *history.Event) {
	g := call.grace
	if g < 1 {
		o.report("S11", inc.key()+"/floor", ev, o.subject(inc),
			"SyncTerminatingPod began at %v with grace %d, want ≥1", ev.At, g)
	}
	prev := inc.final[ops.SyncTerminatingPod]
	if prev != nil && g > prev.grace {
		o.report("S11", inc.key()+"/rise", ev, o.subject(inc),
			"SyncTerminatingPod began at %v with grace %d after %d (began %v): the grace went up",
			ev.At, g, prev.grace, prev.at)
	}
	if prev != nil {
		return
	}
	hi, okHi := inc.graceAt(call.ackMin)
	lo, okLo := inc.graceAt(call.ackMax)
	if okHi && okLo && (g < lo || g > hi) {
		o.report("S11", inc.key()+"/first", ev, o.subject(inc),
			"the first SyncTerminatingPod began at %v with grace %d, want %d (from %s at %v and later inputs)",
			ev.At, g, lo, inc.req.what, inc.req.at)
	}
}

// noteVersion prepares S12 for a callback: the pod version it ran with
// must be the newest one delivered (an accepted update with a real pod)
// before its worker took the update. A callback cannot see what arrives
// while it runs; that is for the next one.
func (o *safetyOracle) noteVersion(inc *safetyInc, call *safetyCall) {
	if call.fn == ops.SyncTerminatingRuntimePod {
		return
	}
	want, ok := inc.versionAt(call.takeMax)
	if !ok {
		return
	}
	call.versionChecked, call.wantVersion = true, want
	got := int64(call.version)
	if v, ok := inc.versionAt(call.takeMin); ok && v == got {
		call.versionOK = true
		return
	}
	for _, m := range inc.versions {
		if m.seq >= call.takeMin && m.seq < call.takeMax && m.v == got {
			call.versionOK = true
			return
		}
	}
}

// versionAt is the version of the newest real pod delivered before seq.
func (inc *safetyInc) versionAt(seq int64) (int64, bool) {
	v, ok := int64(0), false
	for _, m := range inc.versions {
		if m.seq < seq {
			v, ok = m.v, true
		}
	}
	return v, ok
}

// settle is S12 at Settled: "After quiescence, the final sync call of each
// phase saw the newest pod version delivered to that UID before the
// phase's success" — read as: before the final call took its update
// (an update that arrives while the final call runs is carried into the
// next phase, or dropped once the pod finished, SPEC §1.8 step 4).
func (o *safetyOracle) settle(ev *history.Event) {
	for _, t := range o.tracks { // in the order of sortedUIDs
		for _, inc := range t.past {
			o.settleInc(inc, ev)
		}
		if t.cur != nil {
			o.settleInc(t.cur, ev)
		}
	}
}

// settleInc is settle's check of one incarnation (oldest first: the past
// ones, then the current one).
func (o *safetyOracle) settleInc(inc *safetyInc, ev *history.Event) {
	for _, fn := range []ops.SyncFn{ops.SyncPod, ops.SyncTerminatingPod, ops.SyncTerminatedPod} {
		c := inc.final[fn]
		if c == nil || !c.versionChecked || c.versionOK {
			continue
		}
		o.report("S12", inc.key()+"/"+fn.String(), ev, o.subject(inc),
			"the final %s (began %v) ran with pod version %d, but the newest version delivered before it took its update was %d",
			fn, c.at, c.version, c.wantVersion)
	}
}

// checkStaticStart is S15: "a static UID's first SyncPod/SyncTerminatingPod
// begins only when no other static UID with that name is
// started-and-unfinished; among eligible waiters start order = arrival
// order of their first Update". Started = began SyncPod or
// SyncTerminatingPod; finished = ShouldPodBeFinished, or purged. A waiter is
// eligible while it has a record and neither termination requested nor
// terminated (SPEC §1.10). The wait list is keyed by UID and a purge does
// not prune it, so a reused UID may keep its first incarnation's place:
// FIFO is flagged only when the waiter's current incarnation arrived before
// the starter's UID first did.
func (o *safetyOracle) checkStaticStart(t *safetyPod, inc *safetyInc, call *safetyCall, ev *history.Event) {
	for _, uid := range o.sortedUIDs() {
		w := o.pod(uid).cur
		if w == nil || uid == inc.uid || !w.static || w.fullname != inc.fullname {
			continue
		}
		switch {
		case w.starts > 0 && w.finSeq == 0:
			o.report("S15", inc.key()+"/exclusion", ev, o.subject(inc),
				"%s began at %v while %s, a static pod of the same full name %s, was started and not finished (%s)",
				call.fn, ev.At, w.name(), w.fullname, w.state())
		case inc.waiter && w.waiter && w.starts == 0 && w.created < t.firstArrival &&
			safetyEligibleAfter(w.trSeq, call.takeMax) && safetyEligibleAfter(w.termSeq, call.takeMax):
			o.report("S15", inc.key()+"/fifo", ev, o.subject(inc),
				"%s began at %v before %s, a static pod of the same full name %s that arrived earlier (%v) and could start",
				call.fn, ev.At, w.name(), w.fullname, w.createdAt)
		}
	}
}

// safetyEligibleAfter reports that a milestone (seq, 0 if never) came after seq.
func safetyEligibleAfter(milestone, seq int64) bool { return milestone == 0 || milestone > seq }
