package latency

import (
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/model/ops"
	"github.com/podsim/podsim/oracle"
)

// Periods are the pod workers' re-sync periods as the caller configured
// them (SPEC §1.8 step 5): the resync interval after a success, the
// backoff period after an error, and the transient-error backoff (the
// kubelet's backOffOnTransientErrorPeriod, 1 s) after a network-not-ready
// error.
type Periods struct {
	Resync, Backoff, Transient time.Duration
}

// requeueCheck is the requeue-delay oracle (R1): every time the pod
// workers put a pod on the kubelet's work queue — a callback argument of
// the caller's own WorkQueue, noted as history.Requeued — the delay is the
// one SPEC §1.8 step 5 gives the outcome of the pod's last sync call, from
// a base d jittered into [d, 1.5 d]:
//
//   - 0 after a phase transition (SyncPod returned terminal;
//     SyncTerminatingPod succeeded), not jittered;
//   - d = the resync interval after any other success;
//   - after an error, by its shape as the caller recorded it with the
//     call's end (ops.ErrShape, anywhere in the error tree): d = the
//     transient-error backoff if it holds the network-not-ready message;
//     else, if it holds BackoffErrors, d = the time from the requeue to
//     the earliest Expiry among them, clamped to [0, the resync interval];
//     else d = the backoff period;
//   - d = the backoff period after a cancellation, and for a requeue that
//     follows no sync call (the runtime status could not be read, or §1.10
//     refused a static start).
//
// After SyncTerminatedPod or SyncTerminatingRuntimePod succeeded the worker
// exits without a requeue; the UID's next requeue, if any, is a later
// record's (UID reuse) and follows no sync call. The simulated runtime
// draws every error shape in the error-shapes family
// (plan.Faults.ErrorShapes). One per run: a kubelet restart starts afresh.
type requeueCheck struct {
	periods    Periods
	last       history.Few[types.UID, ops.SyncEnd] // a sync call's return not yet followed by its requeue
	violations []history.Violation
}

// NewRequeue returns the requeue-delay oracle for pod workers configured
// with periods p. It reads Noted events (history.Requeued) and callback
// returns.
func NewRequeue(p Periods) oracle.Oracle {
	return &requeueCheck{periods: p}
}

// Reset implements oracle.Resetter: its periods kept.
func (c *requeueCheck) Reset() {
	c.last.Reset()
	*c = requeueCheck{periods: c.periods, last: c.last}
}

// Kinds implements oracle.KindFilter.
func (c *requeueCheck) Kinds() oracle.Kinds {
	return oracle.KindsOf(history.Restarted, history.CallbackEnd, history.Noted)
}

// Observe implements oracle.Oracle.
func (c *requeueCheck) Observe(_ oracle.View, ev *history.Event) {
	switch {
	case ev.Kind == history.Restarted:
		c.last.Reset()
	case ev.Kind == history.CallbackEnd:
		end, ok := ev.Input.(ops.SyncEnd)
		switch {
		case !ok:
		case end.Outcome == ops.OK && (end.Fn == ops.SyncTerminatedPod || end.Fn == ops.SyncTerminatingRuntimePod):
			c.last.Del(types.UID(end.UID)) // the worker exits
		default:
			c.last.Set(types.UID(end.UID), end)
		}
	case ev.Kind == history.Noted:
		if n, ok := ev.Note.(history.Requeued); ok {
			end, after := c.last.Get(n.UID)
			c.last.Del(n.UID)
			c.check(n, end, after, ev)
		}
	}
}

// check judges one requeue against the return it follows (after), if any.
func (c *requeueCheck) check(n history.Requeued, end ops.SyncEnd, after bool, ev *history.Event) {
	k := requeueCaseOf(end, after)
	if lo := c.delay(k, end, ev.At); n.Delay < lo || n.Delay > lo*3/2 {
		c.violate(ev, fmt.Sprintf("pod %s requeued after %v, want %v to %v (%s, jittered ×[1, 1.5]; SPEC §1.8 step 5)",
			n.UID, n.Delay, lo, lo*3/2, c.why(k, end, ev.At)))
	}
}

// requeueCase is the case of SPEC §1.8 step 5 a requeue falls under, by
// the return it follows: delay gives its base delay, why (built only for
// a violation: most requeues are on time) says it in words.
type requeueCase uint8

const (
	noReturn        requeueCase = iota // no sync call returned before it
	transition                         // a phase transition: at once
	resync                             // SyncPod succeeded
	networkNotReady                    // failed, network not ready
	backoffExpiry                      // failed with a BackoffError's expiry
	failed                             // failed or cancelled otherwise
)

// requeueCaseOf is the case of a requeue after the return end (after:
// there is one).
func requeueCaseOf(end ops.SyncEnd, after bool) requeueCase {
	switch {
	case !after:
		return noReturn
	case end.Outcome == ops.OK && (end.Fn == ops.SyncTerminatingPod || end.IsTerminal):
		return transition
	case end.Outcome == ops.OK:
		return resync
	case end.Err.NetworkNotReady:
		return networkNotReady
	case end.Err.Backoff:
		return backoffExpiry
	}
	return failed
}

// delay is the base delay of a requeue of case k at now: it may come from
// that to half as much again after the return.
func (c *requeueCheck) delay(k requeueCase, end ops.SyncEnd, now time.Duration) time.Duration {
	switch k {
	case transition:
		return 0
	case resync:
		return c.periods.Resync
	case networkNotReady:
		return c.periods.Transient
	case backoffExpiry:
		return min(max(end.Err.BackoffExpiry-now, 0), c.periods.Resync)
	}
	return c.periods.Backoff // noReturn, failed
}

// why says why delay is what it is, for a violation's message.
func (c *requeueCheck) why(k requeueCase, end ops.SyncEnd, now time.Duration) string {
	what := fmt.Sprintf("%s ended %s", end.Fn, end.Outcome)
	switch k {
	case noReturn:
		return "no sync call returned before it (a status read failed or a static start was refused): the backoff period"
	case transition:
		return end.Fn.String() + " succeeded" + terminalWord(end) + ", a phase transition: at once"
	case resync:
		return "SyncPod succeeded: the resync interval"
	case networkNotReady:
		return what + ", network not ready: the transient-error backoff"
	case backoffExpiry:
		return fmt.Sprintf("%s, earliest BackoffError expiry at %v: the time to it from %v, within [0, the resync interval %v]",
			what, end.Err.BackoffExpiry, now, c.periods.Resync)
	}
	return what + ": the backoff period"
}

func terminalWord(end ops.SyncEnd) string {
	if end.IsTerminal {
		return " with isTerminal"
	}
	return ""
}

func (c *requeueCheck) violate(ev *history.Event, msg string) {
	c.violations = append(c.violations, history.Violation{Oracle: "runtime", Invariant: "R1-requeue-delay",
		At: ev.At, Seq: ev.Seq, Message: msg + " (R1)"})
}

// Finish implements oracle.Oracle.
func (c *requeueCheck) Finish(oracle.View, error) []history.Violation { return c.violations }
