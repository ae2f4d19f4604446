package liveness

// This file takes the stream's client calls, critical sections and
// callbacks into the pods' tracks.

import (
	"slices"

	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/model/ops"
	"github.com/podsim/podsim/oracle"
)

func (l *liveness) clientCall(ev *history.Event) {
	c := l.openOf(ev.Goroutine)
	if c == nil {
		c = l.newOpen(ev.Goroutine)
	}
	c.in = ev.Input
	switch in := ev.Input.(type) {
	case ops.UpdatePod:
		l.track(types.UID(in.Pod.UID))
		c.effectDue = true
	case ops.KillPodNowDone:
		uid := types.UID(in.UID)
		l.track(uid)
		l.waits[ev.ID] = &killWait{uid: uid, completionID: in.ID, at: ev.At, notRunningAt: unset}
	}
}

func (l *liveness) clientReturn(ev *history.Event) {
	var in ops.Input
	if c := l.openOf(ev.Goroutine); c != nil {
		in = c.in
		c.in, c.effectDue = nil, false
	}
	switch in.(type) {
	case ops.SyncKnownPods:
		l.knownReturned(ev)
	case ops.KillPodNowDone:
		l.killReturned(ev)
	}
}

// lockAcquired notes, as a client's critical section begins, the state its
// call takes effect in: a create for a UID whose termination is requested
// asks for a restart (SPEC §1.4 step 4); a SyncKnownPods must purge every
// finished record that is not desired or asked for a restart (§1.12).
func (l *liveness) lockAcquired(ev *history.Event) {
	switch in := l.callOf(ev.Goroutine).(type) {
	case ops.UpdatePod:
		p := l.track(types.UID(in.Pod.UID))
		if in.Type == ops.Create && !in.RuntimeOnly && p.cur.Known && p.cur.TerminationRequested && p.restartAt == unset {
			p.restartAt = ev.At
		}
	case ops.SyncKnownPods:
		kc := l.newKnownCall(ev.At, in.Desired)
		if !slices.IsSorted(in.Desired) {
			kc.desired = slices.Sorted(slices.Values(in.Desired))
		}
		desired := history.Walk[string]{Sorted: kc.desired} // l.uids ascend
		for i, uid := range l.uids {
			p := l.tracks[i]
			if !p.cur.Known {
				continue
			}
			isDesired := desired.Has(string(uid))
			if !isDesired && p.omittedAt == unset {
				p.omittedAt = ev.At
			}
			if p.cur.BeFinished && (!isDesired || p.restartAt != unset) {
				kc.mustPurge = append(kc.mustPurge, uid)
			}
		}
		l.known.Set(ev.Goroutine, kc)
		l.lastKnownAt = ev.At
	}
}

// lockReleasing reads every tracked pod's answers as the critical section
// ends, from what the public query methods returned there (the event's
// Probe): the milestones of each incarnation are when they first became
// visible. A release without a Probe changes nothing.
func (l *liveness) lockReleasing(v oracle.View, ev *history.Event) {
	if ev.Probe == nil {
		return
	}
	c := l.openOf(ev.Goroutine)
	var call ops.Input
	if c != nil {
		call = c.in
	}
	answers := history.ProbeWalk{Probe: ev.Probe}
	// The probe of the release before and no pod tracked since: every
	// pod's answers are those its update took then (cur), and update would
	// change nothing unless a failed call's error waits to be cleared.
	again := ev.Probe == l.lastProbe && len(l.uids) == l.lastTracked
	l.lastProbe, l.lastTracked = ev.Probe, len(l.uids)
	for i, uid := range l.uids {
		p := l.tracks[i]
		if !again || p.err != nil {
			p.update(l, answers.Answers(uid), ev, call)
		}
		if p.due != nil && (!p.cur.Known || p.cur.BeFinished) {
			l.taken(p, ev)
		}
	}
	if c != nil && c.effectDue { // only then is call copied out as an update
		if in, ok := call.(ops.UpdatePod); ok {
			c.effectDue = false
			p := l.pod(types.UID(in.Pod.UID))
			if in.RuntimeOnly && in.Type == ops.Kill && p.cur.Known {
				p.sawRuntime = true
			}
			l.updateTookEffect(p, in, ev)
		}
	}
	if len(l.waits) == 0 {
		return // most releases: no map walk
	}
	for _, wt := range l.waits { // each wait on its own: any order does
		if wt.notRunningAt == unset && !l.pod(wt.uid).cur.CouldHaveRunning {
			wt.notRunningAt = ev.At
		}
	}
}

// killReturned checks L6: killPodNow returns nil if the termination
// succeeded within its timeout. The wait returned false at its deadline
// (or earlier, never); a pod seen not running strictly before that
// instant should have fired the kill's completion in the same critical
// section.
func (l *liveness) killReturned(ev *history.Event) {
	wt := l.waits[ev.ID]
	delete(l.waits, ev.ID)
	if ok, _ := ev.Output.(ops.Answer); ok {
		l.checked[6]++
		return
	}
	firedAt, fired := l.fired[wt.completionID]
	switch {
	case wt.notRunningAt != unset && wt.notRunningAt < ev.At:
		l.violate("L6", ev, "pod %s: killPodNow (completion #%d, waiting since %v) returned an error at %v, "+
			"but the pod could no longer run containers from %v, within its timeout", wt.uid, wt.completionID, wt.at, ev.At, wt.notRunningAt)
	case fired && firedAt < ev.At:
		l.violate("L6", ev, "pod %s: killPodNow (completion #%d, waiting since %v) returned an error at %v, "+
			"but its completion fired at %v, within its timeout", wt.uid, wt.completionID, wt.at, ev.At, firedAt)
	default:
		l.checked[6]++
	}
}

func (l *liveness) callbackBegin(ev *history.Event) {
	b := ev.Input.(ops.SyncBegin)
	p := l.track(types.UID(b.UID))
	l.taken(p, ev)
	p.begin(l, b.Fn, ev)
}

func (l *liveness) callbackEnd(ev *history.Event) {
	l.takesAfter = unset // the pod may go idle; its error is replaced
	e := ev.Input.(ops.SyncEnd)
	p := l.track(types.UID(e.UID))
	p.end(e, ev.At)
	if p.err != nil && e.Err.Backoff {
		p.err.retryFrom = backoffRetry(e.Err, ev.At, l.periods.Resync)
	}
	p.callEnded(ev.At)
}
