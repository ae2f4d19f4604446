package safety

import (
	"slices"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/model/ops"
)

// A repeated SyncKnownPods release is skipped. The settle phase's
// housekeeping calls SyncKnownPods every period while nothing else
// happens; each such release would be judged in full (a SyncKnownPods
// re-judges every UID) into what the release before it left. It is one when
// the stream since the last SyncKnownPods release (by the same goroutine,
// not a pod worker) holds nothing but that call's return, the new call and
// its LockAcquired (notes aside: the oracle reads none), the new call names
// the same desired UIDs, the release carries the same answers, no UID was
// tracked since, none waits to be judged (the last pass marked none dirty),
// no completion fired in the section, and no record is an unfinished orphan
// (bindSyncKnown would mark it deleted again, with a new trigger).
//
// Why the full pass would change nothing then: the answers of every UID
// are those last seen, so no record begins or is purged; podsSynced is
// already set; with no orphan to mark, binding the call adds only its kept
// records (the last release's, for the check of its result at the return); the
// pass then judges every UID on the state and answers the last release
// judged them on. That pass's first-time milestones are set, its requests
// made (a request marks its UID dirty, which stops the next skip), and
// every violation it could report is reported under the same key, which
// reports once. The result is checked at the return as always.
// TestSafetyIncrementalPass compares the oracle with NewFullPass, which
// never skips, on every kubelet family and mutant.

// repeatMemo follows the stream from one SyncKnownPods release to the
// next (skipRepeat).
type repeatMemo struct {
	// stage: 0 nothing to repeat; 1 a SyncKnownPods released; 2 its call
	// returned; 3 the same goroutine called SyncKnownPods again; 4 it took
	// the pod lock.
	stage   int
	g       string
	id      int // the released call's
	desired []string
	probe   *history.Probe
	tracked int      // UIDs tracked at that release
	kept    []string // the UIDs with a record after it, sorted (read only)
	skipped int      // releases skipped so far (RepeatsSkipped)
	// careless: skip at every release whose call and answers repeat the
	// last SyncKnownPods', whatever happened in between, whatever waits to
	// be judged and whatever the orphans (NewCarelessSkip).
	careless bool
}

// follow moves the memo along the stream for any event but a release. At
// stage 0 it changes nothing (each move needs a stage of 1 to 3; a
// careless memo never moves): step calls it only past stage 0, and
// TestFollowAtStageZeroIsStill holds it to that.
func (m *repeatMemo) follow(ev *history.Event) {
	next := 0
	switch {
	case ev.Kind == history.Noted:
		return
	case m.careless:
		return
	case ev.Kind == history.ClientReturn && m.stage == 1 && ev.ID == m.id:
		next = 2
	case ev.Kind == history.ClientCall && m.stage == 2:
		if _, ok := ev.Input.(ops.SyncKnownPods); ok {
			next = 3
		}
	case ev.Kind == history.LockAcquired && m.stage == 3:
		next = 4
	}
	if ev.Goroutine != m.g {
		next = 0
	}
	m.stage = next
}

// skipRepeat skips a repeated SyncKnownPods release (above): it does what
// release would do that is not already done, and reports whether it did.
// c is the releasing goroutine's call not yet bound, if any.
func (o *safetyOracle) skipRepeat(c *safetyClientCall, ev *history.Event) bool {
	m := &o.repeat
	if o.fullPass || c == nil || ev.Probe == nil || ev.Goroutine != m.g || (m.stage != 4 && !m.careless) {
		return false
	}
	in, ok := c.in.(ops.SyncKnownPods)
	if !ok || !slices.Equal(in.Desired, m.desired) || !sameProbe(ev.Probe, m.probe) {
		return false
	}
	if !m.careless && (len(o.uids) != m.tracked || len(o.csFired) > 0 || len(o.dirty) > 0 || o.allDirty || !o.synced) {
		return false
	}
	if !m.careless && o.orphanKept(in.Desired) {
		return false
	}
	o.inCS = false
	o.unbound.Del(ev.Goroutine)
	c.kept, c.purged = m.kept, nil // no record began or was purged since
	o.cs.ev, o.cs.v = ev, ev.Probe
	if c.returned {
		o.returned(c, ev)
		o.doneCall(c)
	} else {
		o.calls.Set(c.id, c)
	}
	m.stage, m.id, m.probe = 1, c.id, ev.Probe
	m.skipped++
	return true
}

// orphanKept reports whether a record is an orphan (its UID not
// desired) that is not finished.
func (o *safetyOracle) orphanKept(desiredUIDs []string) bool {
	desired := o.desiredSet(desiredUIDs).walk() // o.uids ascend
	for i, uid := range o.uids {
		if inc := o.tracks[i].cur; inc != nil && !desired.has(uid) && !inc.ans.BeFinished {
			return true
		}
	}
	return false
}

// released notes a release judged in full: the memo starts again from it
// if it bound a SyncKnownPods of a goroutine that is no pod worker.
func (o *safetyOracle) released(c *safetyClientCall, ev *history.Event) {
	m := &o.repeat
	m.stage = 0
	if c == nil {
		return
	}
	in, ok := c.in.(ops.SyncKnownPods)
	if _, _, worker := history.WorkerOf(ev.Goroutine); !ok || worker || ev.Probe == nil {
		return
	}
	m.stage, m.g, m.id, m.desired, m.probe, m.tracked, m.kept = 1, ev.Goroutine, c.id, in.Desired, ev.Probe, len(o.uids), c.kept
}

// sameProbe: two probes carry the same answers.
func sameProbe(a, b *history.Probe) bool {
	return a == b || (a.PodsSynced == b.PodsSynced && slices.Equal(a.Pods, b.Pods) && slices.Equal(a.Mirror, b.Mirror))
}
