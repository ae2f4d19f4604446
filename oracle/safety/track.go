package safety

import (
	"slices"
	"strings"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/model/ops"
	"github.com/podsim/podsim/oracle"
	"k8s.io/apimachinery/pkg/types"
)

// This file tracks the events into what incarnations.go holds: client calls
// until their critical section, each release of the pod lock (which UIDs
// to judge), the worker's sections, natural completion, purges and the
// binding of a call to the section that served it.

// onCall notes an UpdatePod or SyncKnownPods until its critical
// section; every UID a call names is tracked from now on (S10 checks the
// answers of UIDs without a record).
func (o *safetyOracle) onCall(ev *history.Event) {
	switch in := ev.Input.(type) {
	case ops.UpdatePod:
		o.track(in.Pod.UID)
	case ops.SyncKnownPods:
		for _, uid := range in.Desired {
			o.track(uid)
		}
	case ops.Query:
		if in.Kind != ops.IsPodForMirrorPodTerminatingByFullName {
			o.track(in.UID)
		}
		return
	default:
		return
	}
	o.unbound.Set(ev.Goroutine, o.newClientCall(ev))
}

// newClientCall records a call until its critical section: in a record
// of a call done before (freeCalls) when there is one.
func (o *safetyOracle) newClientCall(ev *history.Event) *safetyClientCall {
	c := history.Reuse(&o.freeCalls)
	*c = safetyClientCall{id: ev.ID, in: ev.Input, at: ev.At}
	return c
}

// doneCall hands the record of a call that was bound and returned, which
// nothing holds any more, to the next call (newClientCall).
func (o *safetyOracle) doneCall(c *safetyClientCall) {
	*c = safetyClientCall{}
	o.freeCalls = append(o.freeCalls, c)
}

// onReturn checks a bound call's result; killPodNow returns its kill
// inside the critical section, before it is bound.
func (o *safetyOracle) onReturn(ev *history.Event) {
	if c, _ := o.calls.Get(ev.ID); c != nil {
		c.returned, c.out = true, ev.Output
		o.returned(c, ev)
		o.calls.Del(ev.ID)
		o.doneCall(c)
		return
	}
	for _, c := range o.unbound.Values() {
		if c.id == ev.ID {
			c.returned, c.out = true, ev.Output
		}
	}
}

// release processes the end of a critical section: the worker's share of
// it, records created and purged, the client call it served, then the
// state checks over the UIDs whose judgement can have changed (judged).
// c is the releasing goroutine's call not yet bound (unbound), if any.
func (o *safetyOracle) release(v safetyView, c *safetyClientCall, ev *history.Event) {
	o.inCS = false
	worker := o.attributeWorker(ev)
	cs := o.newCS(v, ev)
	if p, ok := v.(*history.Probe); ok {
		o.readProbe(cs, p)
	} else {
		known := sortedKnown(v.KnownUIDs())
		o.trackAll(known)
		o.readAnswers(cs, v, o.sortedUIDs(), known)
	}
	if c != nil {
		o.unbound.Del(ev.Goroutine)
		o.bind(c, cs)
	}
	o.naturalCompletion(worker, ev)
	o.judgeOtherPurges(cs)
	for _, fc := range o.csFired {
		o.checkCompletionFired(fc, ev, cs)
	}
	o.csFired = o.csFired[:0]
	judged := o.takeDirty()
	o.checkState(v, cs, judged)
	for _, t := range judged {
		if t.cur != nil {
			t.cur.ans, t.cur.hasAns = cs.of(t), true
		}
	}
}

// readAnswers reads the answers of uids (every UID tracked, sorted; known:
// those the view knows, sorted) into cs, and begins and purges the
// incarnations whose UID's answers or Known changed.
func (o *safetyOracle) readAnswers(cs *safetyCS, v safetyView, uids, known []string) {
	cs.uids, cs.ans, cs.reads = uids, cs.ans[:0], cs.reads+1
	read := newAnswersReader(v)
	for i, uid := range cs.uids {
		// known is sorted and every UID in it is tracked: a merge walk
		// tells whether uid is in it.
		isKnown := len(known) > 0 && known[0] == uid
		if isKnown {
			known = known[1:]
		}
		o.noteAnswers(cs, o.tracks[i], i, read.answers(types.UID(uid)), isKnown)
	}
}

// readProbe is, for a recorded probe p, what trackAll and readAnswers do
// with its known UIDs and answers, in one walk through p's Pods (sorted
// by UID) beside the UIDs tracked (sorted; one comparison of UIDs a step)
// and p's known UIDs (listed in the order of its Pods): a known UID not
// tracked yet is tracked where the walk stands (track inserts it there),
// and no list is checked for order or searched. With the probe of the
// release before and no UID tracked since, that release's walk found what
// this one would: nothing is read (a target hands the same probe again
// when no answer changed).
// TestReadProbeIsReadAnswers compares it with the view's walk.
func (o *safetyOracle) readProbe(cs *safetyCS, p *history.Probe) {
	if p == o.knownOf && sameArray(o.uids, cs.uids) {
		return
	}
	o.knownOf = p
	o.knownBuf = p.AppendKnownUIDs(o.knownBuf[:0])
	known := o.knownBuf
	cs.ans, cs.reads = cs.ans[:0], cs.reads+1
	unknown := history.UnknownAnswers(p.PodsSynced)
	j := 0 // the next tracked UID to read, in o.uids
	for k := range p.Pods {
		uid := string(p.Pods[k].UID)
		isKnown := len(known) > 0 && known[0] == uid
		if isKnown {
			known = known[1:]
		}
		c := 1 // o.uids[j] against uid; past the end, greater
		for ; j < len(o.uids); j++ {
			if c = strings.Compare(o.uids[j], uid); c >= 0 {
				break
			}
			o.noteAnswers(cs, o.tracks[j], j, unknown, false) // not in p
		}
		if c != 0 {
			if !isKnown || (j > 0 && o.uids[j-1] == uid) { // p lists each UID once
				continue
			}
			o.track(uid) // inserted at j
		}
		o.noteAnswers(cs, o.tracks[j], j, p.Pods[k].Answers, isKnown)
		j++
	}
	for ; j < len(o.uids); j++ {
		o.noteAnswers(cs, o.tracks[j], j, unknown, false)
	}
	cs.uids = o.uids
}

// noteAnswers adds a, t's answers, to cs (t is cs's i-th UID) and, when a
// or Known changed since the last release, has t judged and begins or
// purges its incarnation.
func (o *safetyOracle) noteAnswers(cs *safetyCS, t *safetyPod, i int, a oracle.Answers, isKnown bool) {
	cs.ans, t.csIdx, t.csRead = append(cs.ans, a), i, cs.reads
	if t.seen && a == t.seenAns && isKnown == t.seenKnown {
		return // nothing to begin, purge or note
	}
	t.seen, t.seenAns, t.seenKnown = true, a, isKnown
	o.markDirty(t)
	switch {
	case isKnown && t.cur == nil:
		o.begins(t, cs.ev)
	case !isKnown && t.cur != nil:
		cs.purged[t.uid] = t.cur
		o.purge(t, cs.ev)
	}
	if t.cur != nil {
		t.cur.latest = a
	}
}

// sameArray reports whether a and b are the same elements of one array.
func sameArray(a, b []string) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// trackAll tracks every UID of uids (sorted), walking the tracked UIDs
// (sorted too) beside them: only a UID not tracked yet is looked up.
func (o *safetyOracle) trackAll(uids []string) {
	j := 0
	for _, uid := range uids {
		for j < len(o.uids) && o.uids[j] < uid {
			j++
		}
		if j == len(o.uids) || o.uids[j] != uid {
			o.track(uid) // inserted at j: o.uids[j] is uid now
		}
	}
}

// The per-release pass judges only the UIDs whose judgement can have
// changed since they were last judged (markDirty): the judgement of a UID
// at a release (the state checks of checkState, the milestones, the
// records begun and purged) reads its answers and Known, its record's
// answers at the last release, podsSynced as the oracle derived it, its
// running callback, its record's flags and requests. A UID none of these
// changed for would be judged again into the same result: every milestone
// it could note is noted, every violation it could show is reported
// already (reports are once per key). So a UID is judged again when its
// answers or Known differ from the last ones seen, or when an event changed
// what the oracle keeps about it: a callback began or ended, an update was
// bound to it, a termination was requested, its worker took the lock, it was
// first tracked; a SyncKnownPods (podsSynced, orphans marked deleted)
// re-judges every UID. NewFullPass judges every UID at every release:
// TestSafetyIncrementalPass compares the two.

// markDirty has t judged at the next release.
func (o *safetyOracle) markDirty(t *safetyPod) {
	if !t.dirty {
		t.dirty = true
		o.dirty = append(o.dirty, t)
	}
}

// takeDirty returns the UIDs to judge at this release, sorted by UID
// (every one after a SyncKnownPods, or in a full pass), and clears the
// marks.
func (o *safetyOracle) takeDirty() []*safetyPod {
	for _, t := range o.dirty {
		t.dirty = false
	}
	if o.fullPass || o.allDirty {
		o.dirty, o.allDirty = o.dirty[:0], false
		return o.tracks
	}
	// The list marked is the list judged; the marks of the pass (a request
	// marks its UID) go to the other array, judged's last time.
	o.judged, o.dirty = o.dirty, o.judged[:0]
	if len(o.judged) > 1 {
		slices.SortFunc(o.judged, func(a, b *safetyPod) int { return strings.Compare(a.uid, b.uid) })
	}
	return o.judged
}

// newCS returns the record of the critical section that ends at ev. Its
// map is the previous section's, cleared: one is judged at every pod-lock
// release, and none is kept past its release.
func (o *safetyOracle) newCS(v safetyView, ev *history.Event) *safetyCS {
	cs := &o.cs
	if cs.purged == nil {
		cs.purged = map[string]*safetyInc{}
	}
	if len(cs.purged) > 0 { // most releases purge nothing
		clear(cs.purged)
	}
	cs.ev, cs.v = ev, v // uids and ans: release's
	return cs
}

// attributeWorker files a critical section of worker/<uid> as a possible
// take. A section while the UID has no record, while a callback runs, or
// after the record finished cannot be the current worker's: it is a
// lingering old worker leaving. It returns the worker's UID's state (nil
// for a section of any other goroutine).
func (o *safetyOracle) attributeWorker(ev *history.Event) *safetyPod {
	uid, _, ok := history.WorkerOf(ev.Goroutine)
	if !ok {
		return nil
	}
	t := o.track(uid)
	if t.cur == nil || t.inFlight != nil || t.cur.finSeq != 0 {
		t.lingering = max(t.lingering-1, 0)
		return t
	}
	t.workerCS = append(t.workerCS, ev.Seq)
	t.cur.workerSeen = true
	o.markDirty(t)
	return t
}

// naturalCompletion: the worker's first critical section after a SyncPod
// returned isTerminal requests termination unless something else did
// first (SPEC §1.8 step 4, completeSync), with the grace of the pod. t is
// the state of the section's worker's UID (attributeWorker), nil when the
// section is not a worker's.
func (o *safetyOracle) naturalCompletion(t *safetyPod, ev *history.Event) {
	if t == nil || t.cur == nil {
		return
	}
	inc := t.cur
	if inc.natural == nil || inc.req != nil {
		return
	}
	inc.graces = append(inc.graces, safetyMark{seq: ev.Seq, v: inc.podGrace()})
	o.request(t, inc, o.newRequest(safetyRequest{seq: ev.Seq, at: ev.At, what: inc.natural.what}), ev)
}

// begins starts a new incarnation of t's UID.
func (o *safetyOracle) begins(t *safetyPod, ev *history.Event) {
	n := len(t.past) + 1
	t.cur = o.newInc(t, n, ev)
	t.workerCS = t.workerCS[:0]
}

// purge ends t's current incarnation. Its worker exits by itself when the
// record finished or when it removed the record itself (a runtime-only
// pod); otherwise it may take the lock once more on its way out.
func (o *safetyOracle) purge(t *safetyPod, ev *history.Event) {
	inc := t.cur
	inc.purgedAt = ev.At
	if uid, _, _ := history.WorkerOf(ev.Goroutine); !inc.ans.BeFinished && uid != t.uid {
		t.lingering++
	}
	t.past = append(t.past, inc)
	t.cur = nil
}

// takeWindow bounds the worker's critical sections that took the update of
// a callback of fn beginning now (and, for the terminating callbacks, that
// acknowledged it): the last sections, widened by the lingering ones.
func (t *safetyPod) takeWindow(fn ops.SyncFn, fallback int64) (takeMin, takeMax, ackMin, ackMax int64) {
	cs, l := t.workerCS, t.lingering
	window := func(hi int) (int64, int64) {
		if hi < 0 {
			return fallback, fallback
		}
		return cs[max(hi-l, 0)], cs[hi]
	}
	last := len(cs) - 1
	if fn == ops.SyncTerminatingPod || fn == ops.SyncTerminatingRuntimePod {
		ackMin, ackMax = window(last)
		last--
	}
	takeMin, takeMax = window(last)
	return takeMin, takeMax, ackMin, ackMax
}

// bind applies a client call at its critical section.
func (o *safetyOracle) bind(c *safetyClientCall, cs *safetyCS) {
	switch in := c.in.(type) {
	case ops.UpdatePod:
		o.markDirty(o.track(in.Pod.UID))
		o.bindUpdate(&in, cs)
	case ops.SyncKnownPods:
		o.allDirty = true
		o.bindSyncKnown(in, c, cs)
	}
	if c.returned {
		o.returned(c, cs.ev)
		o.doneCall(c)
		return
	}
	o.calls.Set(c.id, c)
}

// returned checks what a bound call returned.
func (o *safetyOracle) returned(c *safetyClientCall, ev *history.Event) {
	if _, ok := c.in.(ops.SyncKnownPods); ok {
		o.checkKnownResult(c, ev)
	}
}
