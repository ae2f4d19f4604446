package liveness

import (
	"fmt"
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/model/ops"
	"github.com/podsim/podsim/oracle"
)

// podTrack follows one UID through its incarnations (record creation to
// purge, SPEC §3): the milestones the queries made visible, read at every
// pod-lock release, and the sync calls, read from the callbacks.
type podTrack struct {
	uid types.UID
	cur oracle.Answers // as of the last pod-lock release

	// The current incarnation; reset when the record appears again.
	createdAt, requestedAt, terminatedAt, finishedAt time.Duration
	// changedAt is the last change of Known, TerminationRequested,
	// KnownTerminated or BeFinished: when the pod last stopped blocking a
	// static pod of its full name, at the latest.
	changedAt time.Duration
	// omittedAt is the first SyncKnownPods that did not list the UID as
	// desired: from then on housekeeping must purge or terminate it.
	omittedAt time.Duration
	// restartAt is the first create while termination was requested: the
	// finished record must be purged for a restart (SPEC §1.11).
	restartAt time.Duration
	// creator is the pod of the update that created the record.
	creator      ops.Pod
	calls        fnCalls
	terminatedOK bool // a SyncTerminatingPod or its runtime variant succeeded
	keptReported bool // a SyncKnownPods that should have purged it was reported
	// sawRuntime: a runtime-only kill reached this incarnation (the workers'
	// observedRuntime: a pod seen at runtime is driven, not purged, §1.12).
	sawRuntime bool

	// Across incarnations.
	goneAt time.Duration
	// err is the last failed or cancelled call, until any later call begins.
	err     *syncErr
	errHeld syncErr // the record err points at (end): none allocated per failure
	// restart is a purge for a restart whose SyncPod has not begun yet.
	restart     *restartDue
	restartHeld restartDue // the record restart points at (gone)
	// due is the oldest accepted update not yet taken (L9, bounded.go).
	due     *takeDue
	dueHeld takeDue // the record due points at (updateTookEffect): none allocated per obligation
}

// fnCalls are an incarnation's fnStats by callback: those of the known
// callbacks (ops.SyncFn up to SyncTerminatedPod) in place, any other value
// a target reports in a map made for it.
type fnCalls struct {
	known  [ops.SyncTerminatedPod + 1]fnStats
	called [ops.SyncTerminatedPod + 1]bool
	other  map[ops.SyncFn]*fnStats
}

// get returns fn's stats, nil if fn was not called.
func (c *fnCalls) get(fn ops.SyncFn) *fnStats {
	if int(fn) >= len(c.known) {
		return c.other[fn]
	}
	if !c.called[fn] {
		return nil
	}
	return &c.known[fn]
}

// stats returns fn's stats, made on first use.
func (c *fnCalls) stats(fn ops.SyncFn) *fnStats {
	if int(fn) >= len(c.known) {
		st := c.other[fn]
		if st == nil {
			if c.other == nil {
				c.other = map[ops.SyncFn]*fnStats{}
			}
			st = &fnStats{lastAt: unset}
			c.other[fn] = st
		}
		return st
	}
	if !c.called[fn] {
		c.called[fn], c.known[fn] = true, fnStats{lastAt: unset}
	}
	return &c.known[fn]
}

// any reports whether any callback was called.
func (c *fnCalls) any() bool {
	return slices.Contains(c.called[:], true) || len(c.other) > 0
}

// busy reports whether a call of any callback is in flight.
func (c *fnCalls) busy() bool {
	for fn, st := range c.known {
		if c.called[fn] && st.inFlight {
			return true
		}
	}
	for _, st := range c.other {
		if st.inFlight {
			return true
		}
	}
	return false
}

// fnStats counts one callback's calls in an incarnation.
type fnStats struct {
	n        int
	inFlight bool
	last     ops.Outcome
	lastAt   time.Duration
}

type syncErr struct {
	fn      ops.SyncFn
	outcome ops.Outcome
	at      time.Duration
	state   string
	// retryFrom is when the retry's clock starts: at, or for an error
	// holding a BackoffError the latest its requeue may fall due (backoffRetry).
	retryFrom time.Duration
}

// restartDue: the record was purged for a restart at purgedAt; its new
// incarnation's SyncPod is due one housekeeping period after since, when
// the old incarnation had finished and the restart was asked for.
type restartDue struct {
	since, purgedAt time.Duration
}

func newPodTrack(uid types.UID) *podTrack {
	p := new(podTrack)
	initPodTrack(p, uid)
	return p
}

// initPodTrack makes *p what newPodTrack(uid) returns.
func initPodTrack(p *podTrack, uid types.UID) {
	*p = podTrack{uid: uid, goneAt: unset, changedAt: unset}
	p.reset(unset, nil)
}

// reset starts a new incarnation at at, created by call (if an UpdatePod).
func (p *podTrack) reset(at time.Duration, call ops.Input) {
	p.createdAt, p.requestedAt, p.terminatedAt, p.finishedAt = at, unset, unset, unset
	p.omittedAt, p.restartAt = unset, unset
	p.calls, p.terminatedOK, p.keptReported, p.sawRuntime = fnCalls{}, false, false, false
	p.creator = ops.Pod{}
	if u, ok := call.(ops.UpdatePod); ok {
		p.creator = u.Pod
	}
	// A restarted pod that may not run (static: it may wait for its full
	// name, L5; deleted or terminal: it terminates at once) owes no SyncPod.
	if c := p.creator; p.restart != nil && (c.Static || c.DeletionTimestamp || c.Phase.Terminal()) {
		p.restart = nil
	}
}

// update takes the answers at a pod-lock release by ev's goroutine, whose
// client call (if any) is call.
func (p *podTrack) update(l *liveness, a oracle.Answers, ev *history.Event, call ops.Input) {
	prev := p.cur
	switch {
	case a.Known && !prev.Known:
		p.reset(ev.At, call)
	case !a.Known && prev.Known:
		l.gone(p, ev, call)
	}
	if a.Known {
		mark(&p.requestedAt, a.TerminationRequested, ev.At)
		if mark(&p.terminatedAt, a.KnownTerminated, ev.At) && p.requestedAt != unset {
			l.checked[1]++
		}
		if mark(&p.finishedAt, a.BeFinished, ev.At) {
			l.checked[2]++
		}
		if a.TerminationRequested {
			// The restarted incarnation is being torn down already: no SyncPod
			// is owed (early kill, SPEC §1.2).
			p.restart = nil
		}
	}
	if p.err != nil && (a.BeFinished || !a.Known) {
		// Nothing is left to retry: the pod finished (a static pod that can
		// never start finishes without a call) or was purged.
		l.checked[8]++
		p.err, l.takesAfter = nil, unset
	}
	if a.Known != prev.Known || a.TerminationRequested != prev.TerminationRequested ||
		a.KnownTerminated != prev.KnownTerminated || a.BeFinished != prev.BeFinished {
		p.changedAt = ev.At
	}
	p.cur = a
}

// mark records the first time a milestone was seen; it reports whether
// this is that time.
func mark(t *time.Duration, now bool, at time.Duration) bool {
	if now && *t == unset {
		*t = at
		return true
	}
	return false
}

// gone: the record was purged (or, for a runtime-only pod, deleted on
// success). A pod that ran a sync call and never terminated may still
// have running containers nobody will stop (L1). A purge by a
// SyncKnownPods that lists the UID as desired is a purge for a restart
// (S18), which owes a SyncPod (L4).
func (l *liveness) gone(p *podTrack, ev *history.Event, call ops.Input) {
	p.goneAt = ev.At
	if p.calls.any() && p.terminatedAt == unset && !p.terminatedOK {
		l.violate("L1", ev, "pod %s: its record was purged at %v in state %s before it terminated (%s): containers may still run",
			p.uid, ev.At, p.state(p.cur), p.story(ops.SyncTerminatingPod))
	}
	kc, _ := l.known.Get(ev.Goroutine)
	if _, ok := call.(ops.SyncKnownPods); ok && kc != nil && kc.isDesired(p.uid) {
		// The clock starts when both happened: the old incarnation finished
		// and the create asked for the restart.
		since := max(p.finishedAt, p.restartAt)
		if since == unset {
			since = ev.At
		}
		p.restartHeld = restartDue{since: since, purgedAt: ev.At}
		p.restart = &p.restartHeld
	}
}

func (p *podTrack) stats(fn ops.SyncFn) *fnStats {
	return p.calls.stats(fn)
}

// begin: a sync call began. It retries (or supersedes) any earlier failed
// call (L8), and is the SyncPod a restart owes (L4).
func (p *podTrack) begin(l *liveness, fn ops.SyncFn, ev *history.Event) {
	if p.err != nil {
		l.checked[8]++
		p.err, l.takesAfter = nil, unset
	}
	st := p.stats(fn)
	st.n++
	st.inFlight = true
	if fn != ops.SyncPod || p.restart == nil {
		return
	}
	r := p.restart
	p.restart = nil
	if late := ev.At - r.since; late > l.periods.Housekeeping {
		l.violate("L4", ev, "pod %s: purged at %v for a restart, but its SyncPod began only at %v, %v after the old incarnation "+
			"had finished and the restart was asked for (%v; bound: one housekeeping period, %v)",
			p.uid, r.purgedAt, ev.At, late, r.since, l.periods.Housekeeping)
		return
	}
	l.checked[4]++
}

func (p *podTrack) end(e ops.SyncEnd, at time.Duration) {
	st := p.stats(e.Fn)
	st.inFlight, st.last, st.lastAt = false, e.Outcome, at
	if e.Outcome != ops.OK {
		p.errHeld = syncErr{fn: e.Fn, outcome: e.Outcome, at: at, state: p.state(p.cur), retryFrom: at}
		p.err = &p.errHeld
		return
	}
	if e.Fn == ops.SyncTerminatingPod || e.Fn == ops.SyncTerminatingRuntimePod {
		p.terminatedOK = true
	}
}

// started reports whether the incarnation was started (SPEC §1.10): the
// worker starts a pod at the take of its first pass that is not a
// runtime-only termination, and that pass's call follows at once, so a
// started pod is one that began SyncPod, SyncTerminatingPod or
// SyncTerminatedPod. A pod that can never start (a static pod killed while
// waiting) is cleaned up with no call at all.
func (p *podTrack) started() bool {
	return p.calls.get(ops.SyncPod) != nil || p.calls.get(ops.SyncTerminatingPod) != nil || p.calls.get(ops.SyncTerminatedPod) != nil
}

// state names a as a state of SPEC §1.2 (P and S told apart by whether a
// SyncPod ran in this incarnation).
func (p *podTrack) state(a oracle.Answers) string {
	if !a.Known {
		return "unknown"
	}
	return oracle.StateLetter(a, p.calls.get(ops.SyncPod) != nil)
}

// story says what became of fn in this incarnation: that it never ran, is
// still running, or how its last call ended. For the terminating phase it
// reads the runtime variant when only that one ran.
func (p *podTrack) story(fn ops.SyncFn) string {
	if fn == ops.SyncTerminatingPod && p.calls.get(fn) == nil && p.calls.get(ops.SyncTerminatingRuntimePod) != nil {
		fn = ops.SyncTerminatingRuntimePod
	}
	st := p.calls.get(fn)
	switch {
	case st == nil:
		return fn.String() + " never ran"
	case st.inFlight:
		return fmt.Sprintf("%s ran %s, the last is still in flight", fn, times(st.n))
	case st.last == ops.OK:
		return fmt.Sprintf("%s ran %s, the last succeeded at %v", fn, times(st.n), st.lastAt)
	}
	return fmt.Sprintf("%s ran %s, the last %s at %v, and it never succeeded", fn, times(st.n), failedVerb(st.last), st.lastAt)
}

func times(n int) string {
	if n == 1 {
		return "once"
	}
	return fmt.Sprintf("%d times", n)
}

// failedVerb says how a call that did not succeed ended.
func failedVerb(o ops.Outcome) string {
	if o == ops.Canceled {
		return "was cancelled"
	}
	return "failed"
}
