package safety

import (
	"fmt"
	"slices"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/model/ops"
)

// This file checks the callbacks as they begin and end: S1 mutual
// exclusion, S2 phase grammar, S3/S4/S7/S13 for SyncPod, S5, S6, S16,
// S17's "never SyncTerminatedPod", and S18 for a purged UID.

// safetyPhase is where an incarnation stands in the S2 grammar
// SyncPod* ; SyncTerminatingPod+ ; SyncTerminatedPod+ (or
// SyncTerminatingRuntimePod+ for runtime-only pods).
type safetyPhase int

const (
	phNone        safetyPhase = iota
	phSync                    // SyncPod began
	phTerm                    // SyncTerminatingPod began, none succeeded
	phTermDone                // a SyncTerminatingPod succeeded
	phTerminated              // SyncTerminatedPod began, none succeeded
	phFinished                // a SyncTerminatedPod succeeded
	phRuntime                 // SyncTerminatingRuntimePod began, none succeeded
	phRuntimeDone             // a SyncTerminatingRuntimePod succeeded
)

// safetyPhaseOf is the phase a callback puts an incarnation in (phNone for
// any other): a switch, not a map, as every callback asks.
func safetyPhaseOf(fn ops.SyncFn) safetyPhase {
	switch fn {
	case ops.SyncPod:
		return phSync
	case ops.SyncTerminatingPod:
		return phTerm
	case ops.SyncTerminatingRuntimePod:
		return phRuntime
	case ops.SyncTerminatedPod:
		return phTerminated
	}
	return phNone
}

// safetyGrammarAllows is the S2 grammar: which phases each callback may begin
// in. A runtime-only incarnation whose runtime kill failed may go on as a
// normal terminating pod once a real pod arrives (SPEC §1.5, TR row:
// "treated as termination update: newest pod").
func safetyGrammarAllows(p safetyPhase, fn ops.SyncFn, shortcut bool) bool {
	switch fn {
	case ops.SyncPod:
		return p == phNone || p == phSync
	case ops.SyncTerminatingPod:
		return p == phNone || p == phSync || p == phTerm || p == phRuntime
	case ops.SyncTerminatingRuntimePod:
		return p == phNone || p == phRuntime
	case ops.SyncTerminatedPod:
		return p == phTermDone || p == phTerminated || (p == phNone && shortcut)
	}
	return false
}

// begin checks a callback as it begins, against everything the
// incarnation went through, and files it for the checks of later events.
func (o *safetyOracle) begin(b ops.SyncBegin, ev *history.Event) {
	t := o.track(b.UID)
	call := o.newCall()
	*call = safetyCall{fn: b.Fn, seq: ev.Seq, at: ev.At, version: b.Version, grace: b.Grace}
	// S1: "At most one sync call in flight per UID (across incarnations too)."
	if prev := t.inFlight; prev != nil {
		subject := o.unknownSubject(b.UID)
		if t.cur != nil {
			subject = o.subject(t.cur)
		}
		o.report("S1", fmt.Sprintf("%s#%d", b.UID, len(t.past)+1), ev, subject,
			"%s began at %v while %s (began %v) was still running", b.Fn, ev.At, prev.fn, prev.at)
	}
	t.inFlight = call
	o.markDirty(t)
	inc := t.cur
	if inc == nil {
		o.beginWithoutRecord(t, call, ev)
		return
	}
	call.inc = inc
	call.takeMin, call.takeMax, call.ackMin, call.ackMax = t.takeWindow(b.Fn, max(t.lastEnd, inc.created))
	if inc.calls == 0 {
		o.checkNewIncarnation(t, inc, call, ev)
	}
	o.checkGrammar(inc, call, ev)
	o.checkTriggered(inc, call, ev)
	switch b.Fn {
	case ops.SyncPod:
		o.checkSyncPodBegin(t, inc, call, ev)
	case ops.SyncTerminatingPod:
		o.checkNoRunning(inc, call, ev)
		o.checkGrace(inc, call, ev)
	}
	if (b.Fn == ops.SyncPod || b.Fn == ops.SyncTerminatingPod) && inc.starts == 0 && inc.static {
		o.checkStaticStart(t, inc, call, ev)
	}
	if b.Fn == ops.SyncPod || b.Fn == ops.SyncTerminatingPod {
		inc.starts++
	}
	o.noteVersion(inc, call)
	inc.calls++
	inc.last = call
	if int(b.Fn) < len(inc.final) { // S12 reads the final call of the known callbacks only
		inc.final[b.Fn] = call
	}
}

// end closes the running callback and advances the phase grammar; a
// SyncPod that reports isTerminal requests termination (SPEC §1.8 step 4).
func (o *safetyOracle) end(e ops.SyncEnd, ev *history.Event) {
	t := o.track(e.UID)
	c := t.inFlight
	t.inFlight, t.workerCS, t.lastEnd = nil, t.workerCS[:0], ev.Seq
	o.markDirty(t)
	if c == nil || c.fn != e.Fn {
		running := "nothing"
		if c != nil {
			running = c.fn.String()
		}
		o.report("S2", e.UID+"/end", ev, "pod "+e.UID,
			"%s ended at %v, but %s was running", e.Fn, ev.At, running)
		return
	}
	c.ended, c.outcome = true, e.Outcome
	inc := c.inc
	if inc == nil || e.Outcome != ops.OK {
		return
	}
	if e.Fn == ops.SyncTerminatingPod || (e.Fn == ops.SyncPod && e.IsTerminal) {
		inc.triggers = append(inc.triggers, ev.Seq) // a phase transition replays the last update
	}
	switch {
	case e.Fn == ops.SyncTerminatingPod && inc.phase == phTerm:
		inc.phase = phTermDone
	case e.Fn == ops.SyncTerminatedPod && inc.phase == phTerminated:
		inc.phase = phFinished
	case e.Fn == ops.SyncTerminatingRuntimePod && inc.phase == phRuntime:
		inc.phase = phRuntimeDone
	case e.Fn == ops.SyncPod && e.IsTerminal && inc.natural == nil:
		// SPEC §1.8 step 4: natural completion requests termination, in
		// the worker's next critical section (naturalCompletion).
		inc.natural = o.newRequest(safetyRequest{seq: ev.Seq, at: ev.At, what: whatText("SyncPod's natural completion (isTerminal)")})
	}
}

// beginWithoutRecord: a callback for a UID with no record ran after a
// purge (S18: "it never purges a started, unfinished record") or for a UID
// that never had one (S2: calls belong to an incarnation).
func (o *safetyOracle) beginWithoutRecord(t *safetyPod, call *safetyCall, ev *history.Event) {
	if n := len(t.past); n > 0 {
		last := t.past[n-1]
		o.report("S18", last.key()+"/after-purge", ev, last.name()+" (purged)",
			"%s began at %v after the record was purged at %v", call.fn, ev.At, last.purgedAt)
		return
	}
	o.report("S2", t.uid+"/no-record", ev, o.unknownSubject(t.uid),
		"%s began at %v for a UID that never had a record", call.fn, ev.At)
}

// checkNewIncarnation is S16: "A new incarnation of a reused UID begins its
// first sync only after the old incarnation finished".
func (o *safetyOracle) checkNewIncarnation(t *safetyPod, inc *safetyInc, call *safetyCall, ev *history.Event) {
	n := len(t.past)
	if n == 0 {
		return
	}
	prev := t.past[n-1]
	l := prev.last
	done := prev.calls == 0 || prev.phase == phFinished || prev.phase == phRuntimeDone || prev.finSeq != 0
	if done && (l == nil || l.ended) {
		return
	}
	o.report("S16", inc.key()+"/overlap", ev, o.subject(inc),
		"the first %s of this incarnation began at %v, but incarnation %d had not finished (its last callback: %s)",
		call.fn, ev.At, prev.n, safetyDescribeCall(l))
}

// safetyDescribeCall names a callback and how it ended.
func safetyDescribeCall(c *safetyCall) string {
	switch {
	case c == nil:
		return "none"
	case !c.ended:
		return fmt.Sprintf("%s began %v, still running", c.fn, c.at)
	}
	return fmt.Sprintf("%s began %v, %s", c.fn, c.at, c.outcome)
}

// checkGrammar is S2 (phase grammar), S5 ("SyncTerminatedPod begins only
// after a SyncTerminatingPod ended with nil in this incarnation, or ... the
// restart shortcut"), S6 ("No sync call after a successful
// SyncTerminatedPod/SyncTerminatingRuntimePod until purge") and S17 ("a
// runtime kill never leads to SyncTerminatedPod").
func (o *safetyOracle) checkGrammar(inc *safetyInc, call *safetyCall, ev *history.Event) {
	fn := call.fn
	if fn == ops.SyncTerminatedPod && !inc.realPod {
		o.report("S17", inc.key()+"/terminated", ev, o.subject(inc),
			"SyncTerminatedPod began at %v for a pod known only from a runtime kill", ev.At)
	}
	switch {
	case inc.phase == phFinished || inc.phase == phRuntimeDone || inc.finSeq != 0:
		o.report("S6", inc.key()+"/after-finish", ev, o.subject(inc),
			"%s began at %v after the pod finished (last callback: %s)", fn, ev.At, safetyDescribeCall(inc.last))
	case safetyGrammarAllows(inc.phase, fn, inc.shortcut):
	case fn == ops.SyncTerminatedPod:
		o.report("S5", inc.key()+"/early", ev, o.subject(inc),
			"SyncTerminatedPod began at %v before any SyncTerminatingPod succeeded (last callback: %s)",
			ev.At, safetyDescribeCall(inc.last))
	default:
		o.report("S2", inc.key()+"/grammar", ev, o.subject(inc),
			"%s began at %v after %s", fn, ev.At, safetyDescribeCall(inc.last))
	}
	inc.phase = safetyPhaseOf(fn)
}

// checkSyncPodBegin is S3 ("No SyncPod begins after termination was
// requested … A SyncPod begun earlier may still be running; its context
// must be cancelled"), S13 ("no later create/update/sync makes the pod
// syncing again") and S4 ("ShouldPodContainersBeTerminating==true ⇒ …
// none later in this incarnation").
//
// The exact S3 rule: a SyncPod that begins after a SyncPod of its
// incarnation returned isTerminal, or whose update was taken after the
// critical section of the first termination request (a kill, deletion or
// terminal phase taking effect, SyncKnownPods orphaning it, or
// IsPodTerminationRequested turning true), is a violation. One taken before
// that critical section may still begin later (upstream's B16 window), but
// only after its context was cancelled.
func (o *safetyOracle) checkSyncPodBegin(t *safetyPod, inc *safetyInc, call *safetyCall, ev *history.Event) {
	after := inc.natural
	if after != nil {
		o.report("S3", inc.key()+"/after", ev, o.subject(inc),
			"SyncPod began at %v after the SyncPod that returned isTerminal at %v", ev.At, after.at)
	}
	if r := inc.req; r != nil {
		switch {
		case call.takeMin > r.seq:
			o.report("S3", inc.key()+"/after", ev, o.subject(inc),
				"SyncPod began at %v after %s at %v requested termination", ev.At, r.what, r.at)
			if after == nil || r.seq < after.seq {
				after = r
			}
		case after == nil && t.lastCancel <= call.takeMin:
			o.report("S3", inc.key()+"/window", ev, o.subject(inc),
				"SyncPod began at %v after %s at %v requested termination, and its context was not cancelled",
				ev.At, r.what, r.at)
		}
	}
	if u := inc.updAfterReq; after != nil && u != nil && u.seq < call.takeMin {
		o.report("S13", inc.key()+"/sync-again", ev, o.subject(inc),
			"SyncPod began again at %v: %s at %v, after %s at %v, was run as a sync", ev.At, u.what, u.at, after.what, after.at)
	}
	if inc.ackSeq != 0 {
		o.report("S4", inc.key()+"/begin", ev, o.subject(inc),
			"SyncPod began at %v although ShouldPodContainersBeTerminating has been true since %v", ev.At, inc.ackAt)
	}
	o.checkNoRunning(inc, call, ev)
}

// checkNoRunning is S7: "CouldHaveRunningContainers(uid)==false (or
// ShouldPodRuntimeBeRemoved==true) ⇒ no SyncPod/SyncTerminatingPod … will
// begin in this incarnation".
func (o *safetyOracle) checkNoRunning(inc *safetyInc, call *safetyCall, ev *history.Event) {
	if inc.noRunSeq == 0 {
		return
	}
	o.report("S7", inc.key()+"/begin", ev, o.subject(inc),
		"%s began at %v although CouldHaveRunningContainers has been false since %v", call.fn, ev.At, inc.noRunAt)
}

// checkTriggered is the rest of S17: "runtime kills on a terminated/finished
// record are ignored". A worker runs a callback only for an update it took:
// one accepted since its previous callback took its own, an orphan replay
// of SyncKnownPods, or the replay after a phase transition (SPEC §1.6,
// §1.8). A callback with none of those, but with a runtime kill of the
// terminated pod in between, was driven by that kill (#103625).
func (o *safetyOracle) checkTriggered(inc *safetyInc, call *safetyCall, ev *history.Event) {
	lo := int64(0)
	if inc.last != nil {
		lo = inc.last.takeMin
	}
	in := func(seq int64) bool { return seq > lo && seq < call.takeMax }
	if slices.ContainsFunc(inc.triggers, in) {
		return
	}
	for _, k := range inc.ignored {
		if in(k.seq) {
			o.report("S17", inc.key()+"/driven", ev, o.subject(inc),
				"%s began at %v, driven by the runtime-only kill at %v that a terminated pod must ignore", call.fn, ev.At, k.at)
			return
		}
	}
}
