package safety

// This file applies SyncKnownPods at its critical section (SPEC §1.12) and
// judges S18: which records may be purged, by whom, and what the call
// returns.

import (
	"maps"
	"slices"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/model/ops"
)

// bindSyncKnown applies SyncKnownPods (§1.12): podsSynced, purges, and the
// termination of kept orphans (deleted, grace from the pod or 1).
func (o *safetyOracle) bindSyncKnown(in ops.SyncKnownPods, c *safetyClientCall, cs *safetyCS) {
	if !o.synced {
		o.synced, o.syncedAt = true, cs.ev.At
	}
	desired := o.desiredSet(in.Desired)
	c.purged = nil
	if len(cs.purged) > 0 {
		c.purged = o.strs.Make(len(cs.purged)) // at its size: no growth
		for uid := range cs.purged {
			c.purged = append(c.purged, uid)
		}
		slices.Sort(c.purged)
	}
	purgedDesired := desired.walk() // c.purged ascends
	for _, uid := range c.purged {
		o.judgeSyncKnownPurge(o.pod(uid), cs.purged[uid], purgedDesired.has(uid), cs.ev)
		delete(cs.purged, uid)
	}
	c.kept = o.strs.Make(len(o.uids))
	keptDesired := desired.walk() // sortedUIDs ascend
	for _, uid := range o.sortedUIDs() {
		t := o.pod(uid)
		inc := t.cur
		if inc == nil {
			continue
		}
		c.kept = append(c.kept, uid) // sorted, as sortedUIDs is
		if keptDesired.has(uid) || inc.created == cs.ev.Seq || inc.ans.BeFinished {
			continue
		}
		inc.deleted = true
		inc.triggers = append(inc.triggers, cs.ev.Seq) // §1.12: the worker replays its last update
		if inc.req == nil {
			inc.graces = append(inc.graces, safetyMark{seq: cs.ev.Seq, v: inc.podGrace()})
			o.request(t, inc, o.newRequest(safetyRequest{seq: cs.ev.Seq, at: cs.ev.At, what: whatText("SyncKnownPods (orphan)"), cancel: true}), cs.ev)
		}
	}
}

// judgeSyncKnownPurge is S18: "SyncKnownPods purges only records that are
// finished ∧ (orphan ∨ restartRequested), or orphan ∧ never-started ∧
// never-seen-at-runtime".
func (o *safetyOracle) judgeSyncKnownPurge(t *safetyPod, inc *safetyInc, desired bool, ev *history.Event) {
	running := t.inFlight != nil && t.inFlight.inc == inc
	switch {
	case inc.ans.BeFinished && desired && !inc.restart:
		o.report("S18", inc.key()+"/purge", ev, o.subject(inc),
			"SyncKnownPods at %v purged the finished record of a desired pod with no restart requested", ev.At)
	case inc.ans.BeFinished:
	case desired:
		o.report("S18", inc.key()+"/purge", ev, o.subject(inc),
			"SyncKnownPods at %v purged the unfinished record of a desired pod", ev.At)
	case running:
		o.report("S18", inc.key()+"/purge", ev, o.subject(inc),
			"SyncKnownPods at %v purged an unfinished orphan while its %s (began %v) was running",
			ev.At, t.inFlight.fn, t.inFlight.at)
	case inc.calls > 0:
		o.report("S18", inc.key()+"/purge", ev, o.subject(inc),
			"SyncKnownPods at %v purged an unfinished orphan that had started (last callback: %s)",
			ev.At, safetyDescribeCall(inc.last))
	case inc.observedRuntime:
		o.report("S18", inc.key()+"/purge", ev, o.subject(inc),
			"SyncKnownPods at %v purged an unfinished orphan that a runtime kill had seen", ev.At)
	}
}

// judgeOtherPurges: outside SyncKnownPods a record may only vanish in its
// worker's critical section after SyncTerminatingRuntimePod succeeded
// (§1.8 step 4, runtime-only pods keep no history).
func (o *safetyOracle) judgeOtherPurges(cs *safetyCS) {
	if len(cs.purged) == 0 {
		return // most releases purge nothing
	}
	for _, uid := range slices.Sorted(maps.Keys(cs.purged)) {
		inc := cs.purged[uid]
		l := inc.last
		if wuid, _, _ := history.WorkerOf(cs.ev.Goroutine); wuid == uid && l != nil && l.fn == ops.SyncTerminatingRuntimePod && l.ended && l.outcome == ops.OK {
			continue
		}
		o.report("S18", inc.key()+"/vanished", cs.ev, o.subject(inc),
			"the record vanished at %v in a critical section of %s, not by SyncKnownPods", cs.ev.At, cs.ev.Goroutine)
	}
}

// checkKnownResult is S18: "purged UIDs are absent from its result"; and
// §1.12 step 3: every kept record is reported.
func (o *safetyOracle) checkKnownResult(c *safetyClientCall, ev *history.Event) {
	out, ok := c.out.(ops.KnownPods)
	if !ok {
		return
	}
	listed := make([]bool, len(c.kept)) // by index in c.kept
	for _, kp := range out {
		k, isKept := history.Search(c.kept, kp.UID)
		if isKept {
			listed[k] = true
		}
		switch {
		case has(c.purged, kp.UID):
			o.report("S18", "result/purged/"+kp.UID, ev, "pod "+kp.UID,
				"SyncKnownPods at %v purged the record but lists it in its result", c.at)
		case !isKept:
			o.report("S18", "result/unknown/"+kp.UID, ev, "pod "+kp.UID,
				"SyncKnownPods at %v lists a UID that has no record", c.at)
		}
	}
	for k, uid := range c.kept {
		if !listed[k] {
			o.report("S18", "result/missing/"+uid, ev, "pod "+uid,
				"SyncKnownPods at %v kept the record but left it out of its result", c.at)
		}
	}
}
