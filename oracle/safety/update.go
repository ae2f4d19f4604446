package safety

import (
	"fmt"
	"math"
	"slices"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/model/ops"
)

// This file applies UpdatePod at its critical section as SPEC §1.4 decides
// it (SyncKnownPods is purge.go's). It derives what no query shows
// (termination requests, evicted/deleted, restart requested, effective
// grace inputs, delivered versions) and checks S17.

// bindUpdate applies an UpdatePod at its critical section.
func (o *safetyOracle) bindUpdate(u *ops.UpdatePod, cs *safetyCS) {
	uid := u.Pod.UID
	t := o.track(uid)
	fullname := o.fullNameOf(t, &u.Pod)
	inc := t.cur
	isNew := inc != nil && inc.created == cs.ev.Seq
	if u.RuntimeOnly && u.Type != ops.Kill {
		// S17: "Non-kill runtime updates never create records" (§1.4 step 1).
		if isNew {
			o.report("S17", inc.key()+"/create", cs.ev, o.subject(inc),
				"a runtime-only %s at %v created a record", u.Type, cs.ev.At)
		}
		o.deliver(u, false, cs)
		return
	}
	if inc == nil {
		o.deliver(u, false, cs)
		return
	}
	if isNew {
		o.initIncarnation(t, inc, u, fullname, cs)
	}
	accepted := o.accepted(u, inc, isNew, cs)
	requests := accepted && safetyTerminates(u)
	o.deliver(u, requests, cs)
	o.noteUpdateAfterRequest(u, inc, isNew, cs)
	if !accepted {
		return
	}
	inc.triggers = append(inc.triggers, cs.ev.Seq)
	if !u.RuntimeOnly {
		if u.Pod.Static && !inc.static {
			o.statics++
		}
		inc.realPod, inc.static = true, inc.static || u.Pod.Static
		inc.versions = append(inc.versions, safetyMark{seq: cs.ev.Seq, v: int64(u.Pod.Version)})
		inc.specGrace = u.Pod.SpecGrace
		inc.deletionGrace, inc.hasDeletionGrace = u.Pod.DeletionGrace, u.Pod.HasDeletionGrace
	}
	switch {
	case inc.req == nil && requests:
		o.firstRequestByUpdate(t, inc, u, cs)
	case inc.req != nil && !isNew && !inc.ans.KnownTerminated:
		// §1.4 step 7 (TR/T): the grace may only go down.
		o.lowerGrace(t, inc, safetyGraceValues(u), cs.ev)
	}
}

// safetyTerminates reports an update that requests termination (§1.4 step 6).
func safetyTerminates(u *ops.UpdatePod) bool {
	return u.Type == ops.Kill || u.RuntimeOnly || u.Pod.DeletionTimestamp || u.Pod.Phase.Terminal()
}

// safetyGraceValues are the grace inputs an update carries (§1.7 steps 2–3).
func safetyGraceValues(u *ops.UpdatePod) []int64 {
	var out []int64
	if !u.RuntimeOnly && u.Pod.HasDeletionGrace {
		out = append(out, u.Pod.DeletionGrace)
	}
	if u.Kill.HasGraceOverride {
		out = append(out, u.Kill.GraceOverride)
	}
	return out
}

// safetyDescribeUpdate names an update the way a trace does.
func safetyDescribeUpdate(u ops.UpdatePod) string {
	switch {
	case u.RuntimeOnly:
		return "runtime-only " + u.Type.String()
	case u.Type == ops.Kill:
		return "kill"
	case u.Pod.DeletionTimestamp:
		return fmt.Sprintf("delete (%s v%d)", u.Type, u.Pod.Version)
	case u.Pod.Phase.Terminal():
		return fmt.Sprintf("%s v%d (%s)", u.Type, u.Pod.Version, u.Pod.Phase)
	}
	return fmt.Sprintf("%s v%d", u.Type, u.Pod.Version)
}

// safetyWhat names what made a request or carried a completion, for
// messages: an update is described (safetyDescribeUpdate) only when a
// message prints it, not at every update a run applies.
type safetyWhat struct {
	text string // a fixed description; "" for an update's
	// The fields of the update safetyDescribeUpdate reads, when text is "".
	typ                   ops.UpdateType
	runtimeOnly, deletion bool
	version               int
	phase                 ops.Phase
}

func whatText(text string) safetyWhat { return safetyWhat{text: text} }

func whatUpdate(u *ops.UpdatePod) safetyWhat {
	return safetyWhat{typ: u.Type, runtimeOnly: u.RuntimeOnly, deletion: u.Pod.DeletionTimestamp,
		version: u.Pod.Version, phase: u.Pod.Phase}
}

func (w safetyWhat) String() string {
	if w.text != "" {
		return w.text
	}
	return safetyDescribeUpdate(ops.UpdatePod{Type: w.typ, RuntimeOnly: w.runtimeOnly,
		Pod: ops.Pod{DeletionTimestamp: w.deletion, Version: w.version, Phase: w.phase}})
}

// initIncarnation records what the creating update decides once: the full
// name, the wait list (§1.4 step 8) and the restart shortcut (§1.4 step 2).
func (o *safetyOracle) initIncarnation(t *safetyPod, inc *safetyInc, u *ops.UpdatePod, fullname string, cs *safetyCS) {
	inc.fullname = fullname
	inc.waiter = !u.RuntimeOnly && u.Pod.Static
	if inc.waiter && t.firstArrival == 0 {
		t.firstArrival = inc.created
	}
	if !cs.answers(inc.uid).KnownTerminated {
		return
	}
	inc.shortcut = true
	// S5: the only way to begin terminated is the restart shortcut, for a
	// pod first seen in a terminal phase.
	if u.RuntimeOnly || !u.Pod.Phase.Terminal() {
		o.report("S5", inc.key()+"/shortcut", cs.ev, o.subject(inc),
			"the record was created terminated by %s at %v, whose pod is not in a terminal phase", safetyDescribeUpdate(*u), cs.ev.At)
	}
}

// accepted reports whether the workers take the update (§1.4 steps 3–5,
// 7): a create for a terminating UID only sets restartRequested; a
// finished UID takes nothing; a runtime kill of a terminated UID is
// ignored (S17).
func (o *safetyOracle) accepted(u *ops.UpdatePod, inc *safetyInc, isNew bool, cs *safetyCS) bool {
	if u.RuntimeOnly {
		inc.observedRuntime = true
	}
	prev := inc.ans
	switch {
	case isNew:
		return true
	case !u.RuntimeOnly && u.Type == ops.Create && prev.TerminationRequested:
		inc.restart = true
		return false
	case prev.BeFinished:
		return false
	case u.RuntimeOnly && prev.KnownTerminated:
		// S17: "runtime kills on a terminated/finished record are ignored".
		inc.ignored = append(inc.ignored, o.newRequest(safetyRequest{seq: cs.ev.Seq, at: cs.ev.At}))
		if d := safetyDiff(prev, cs.answers(inc.uid)); d != "" {
			o.report("S17", inc.key()+"/ignored", cs.ev, o.subject(inc),
				"a runtime-only kill at %v changed the answers of the terminated pod: %s", cs.ev.At, d)
		}
		return false
	}
	return true
}

// deliver registers the completion Event a kill carries (S14).
func (o *safetyOracle) deliver(u *ops.UpdatePod, requests bool, cs *safetyCS) {
	id := u.Kill.CompletionID
	if id == 0 || o.completions[id] != nil {
		return
	}
	c := o.completionRecs.Next()
	*c = safetyCompletion{id: id, uid: u.Pod.UID, pod: o.track(u.Pod.UID), seq: cs.ev.Seq, at: cs.ev.At,
		what: whatUpdate(u), requesting: requests}
	o.completions[id] = c
	i, _ := slices.BinarySearchFunc(o.open, id, byCompletionID)
	o.open = slices.Insert(o.open, i, c)
}

// noteUpdateAfterRequest remembers the first create/update/sync that
// reaches a pod after its termination was requested (S13), and checks that
// it did not make the pod syncing again.
func (o *safetyOracle) noteUpdateAfterRequest(u *ops.UpdatePod, inc *safetyInc, isNew bool, cs *safetyCS) {
	if isNew || (inc.req == nil && inc.natural == nil) || u.Type == ops.Kill || u.RuntimeOnly {
		return
	}
	r := inc.req
	if r == nil || (inc.natural != nil && inc.natural.seq < r.seq) {
		r = inc.natural
	}
	if inc.updAfterReq == nil {
		inc.updAfterReq = o.newRequest(safetyRequest{seq: cs.ev.Seq, at: cs.ev.At, what: whatUpdate(u)})
	}
	// S13: "no later create/update/sync makes the pod syncing again".
	if inc.ans.TerminationRequested && !cs.answers(inc.uid).TerminationRequested {
		o.report("S13", inc.key()+"/revert", cs.ev, o.subject(inc),
			"%s at %v made the pod syncing again after %s at %v (IsPodTerminationRequested true→false)",
			safetyDescribeUpdate(*u), cs.ev.At, r.what, r.at)
	}
}

// firstRequestByUpdate records the update that started termination: the
// flags it sets (§1.4 step 6, first matching rule) and the grace it
// starts from (§1.7: the smallest value given, else the spec's).
func (o *safetyOracle) firstRequestByUpdate(t *safetyPod, inc *safetyInc, u *ops.UpdatePod, cs *safetyCS) {
	if !inc.shortcut {
		switch {
		case u.RuntimeOnly, u.Pod.DeletionTimestamp:
			inc.deleted = true
		case u.Pod.Phase.Terminal():
		default:
			inc.evicted = u.Kill.Evict
		}
	}
	spec := u.Pod.SpecGrace
	if u.RuntimeOnly && inc.realPod {
		spec = inc.specGrace // a runtime kill of a known pod kills that pod (§1.4 step 3)
	}
	base := safetyClamp1(spec)
	if vs := safetyGraceValues(u); len(vs) > 0 {
		base = safetyClamp1(slices.Min(vs))
	}
	inc.graces = append(inc.graces, safetyMark{seq: cs.ev.Seq, v: base})
	o.request(t, inc, o.newRequest(safetyRequest{seq: cs.ev.Seq, at: cs.ev.At, what: whatUpdate(u), cancel: true}), cs.ev)
}

// podGrace is the grace §1.7 computes from the incarnation's newest pod
// with no override (natural completion, orphan driving), or 1 without one.
func (inc *safetyInc) podGrace() int64 {
	switch {
	case !inc.realPod:
		return 1
	case inc.hasDeletionGrace:
		return safetyClamp1(inc.deletionGrace)
	}
	return safetyClamp1(inc.specGrace)
}

// request records the incarnation's first termination request. S3: "A
// SyncPod begun earlier may still be running; its context must be
// cancelled" — by the critical section that made the request.
func (o *safetyOracle) request(t *safetyPod, inc *safetyInc, r *safetyRequest, ev *history.Event) {
	inc.req = r
	o.markDirty(t)
	c := t.inFlight
	if !r.cancel || c == nil || c.inc != inc || c.fn != ops.SyncPod || t.lastCancel > c.takeMin {
		return
	}
	o.report("S3", inc.key()+"/uncancelled", ev, o.subject(inc),
		"%s at %v requested termination while SyncPod (began %v) was running, and its context was not cancelled",
		r.what, r.at, c.at)
}

// lowerGrace applies grace inputs to a terminating pod. S11: "A grace
// decrease while a sync is in flight cancels its context."
func (o *safetyOracle) lowerGrace(t *safetyPod, inc *safetyInc, values []int64, ev *history.Event) {
	if len(values) == 0 {
		return
	}
	v := safetyClamp1(slices.Min(values))
	before, ok := inc.graceAt(math.MaxInt64)
	inc.graces = append(inc.graces, safetyMark{seq: ev.Seq, v: v})
	c := t.inFlight
	if !ok || v >= before || c == nil || c.inc != inc || t.lastCancel > c.takeMin {
		return
	}
	o.report("S11", inc.key()+"/uncancelled", ev, o.subject(inc),
		"the grace went down from %d to %d at %v while %s (began %v) was running, and its context was not cancelled",
		before, v, ev.At, c.fn, c.at)
}

// graceAt is the effective grace from the inputs that took effect before
// seq: they only lower it.
func (inc *safetyInc) graceAt(seq int64) (int64, bool) {
	g, ok := int64(0), false
	for _, m := range inc.graces {
		if m.seq < seq && (!ok || m.v < g) {
			g, ok = m.v, true
		}
	}
	return g, ok
}
