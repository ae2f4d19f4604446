package liveness

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/model"
	"github.com/podsim/podsim/oracle"
)

// judge gives the verdict at Settled on the final state (finalState): the
// driver took it after the settle phase and the drain, through the locking
// snapshots, in its own goroutine, before emitting Settled; Observe itself
// runs no simulation operation. Pods are judged in UID order, static full
// names in name order, so messages come out in a stable order.
func (l *liveness) judge(v oracle.View, ev history.Event) {
	f := v.Final()
	if f == nil {
		l.violate("settle", ev, "Settled came without a final state: nothing was judged")
		return
	}
	if f.Seq+1 != ev.Seq {
		l.violate("L3", ev, "not quiescent: %d events happened between the final state (%v) and Settled, "+
			"%v after the inputs stopped", ev.Seq-f.Seq-1, f.At, f.At-f.QuiesceAt)
	}
	uids := slices.Clone(l.uids)
	for uid := range f.Pods {
		if l.pods[uid] == nil {
			uids = append(uids, uid)
		}
	}
	slices.Sort(uids)
	for _, uid := range uids {
		rec, ok := f.Pods[uid]
		j := judgement{l: l, p: l.track(uid), cfg: v.Config(uid), f: f, ev: ev, rec: rec, known: ok}
		j.record()
		j.quiescent()
		j.deletion()
		j.restart()
		j.retry()
	}
	l.judgeStatic(v, f, ev)
}

// judgement is one pod's verdict at Settled.
type judgement struct {
	l     *liveness
	p     *podTrack
	cfg   oracle.PodConfig
	f     *oracle.Final
	ev    history.Event
	rec   oracle.PodState
	known bool // the pod workers have a record
}

func (j judgement) violate(invariant, format string, args ...any) {
	j.l.violate(invariant, j.ev, "%s: %s [%s]", j.name(), fmt.Sprintf(format, args...), j.recString())
}

// name is "pod a (static web_default, not in config)".
func (j judgement) name() string {
	var parts []string
	if j.cfg.Static {
		parts = append(parts, "static "+j.cfg.FullName)
	}
	if j.cfg.InConfig {
		parts = append(parts, "in config")
	} else {
		parts = append(parts, "not in config")
	}
	if j.cfg.Deleted {
		parts = append(parts, "deletion timestamp set")
	}
	return fmt.Sprintf("pod %s (%s)", j.p.uid, strings.Join(parts, ", "))
}

func (j judgement) recString() string {
	if !j.known {
		return "no record"
	}
	return j.rec.String()
}

func (j judgement) state() string {
	if !j.known {
		return "unknown"
	}
	return j.rec.State
}

// record judges the record's phase: L5 for a static pod killed while
// waiting to start, L1 (termination requested ⇒ terminated; a pod that left
// config is terminated), L2 (terminated ⇒ finished; an unstarted orphan is
// purged). A running pod in config that nobody killed is settled.
func (j judgement) record() {
	rec, p := j.rec, j.p
	switch {
	case !j.known:
	case j.cfg.Static && !rec.Started && rec.TerminationRequested && (!rec.Finished || rec.HasWorker):
		j.violate("L5", "killed at %v while waiting to start (state %s), but its worker never exited: "+
			"the cleanup of a pod that can never start never ran", p.requestedAt, rec.State)
	case !rec.Started && !rec.ObservedRuntime && !rec.Finished && p.omittedAt != unset:
		j.violate("L2", "never started and never seen at runtime (state %s), not desired at the SyncKnownPods of %v, "+
			"yet never purged", rec.State, p.omittedAt)
	case rec.TerminationRequested && !rec.Terminated:
		j.violate("L1", "termination requested at %v, state %s; %s", p.requestedAt, rec.State, p.story(model.SyncTerminatingPod))
	case rec.Terminated && !rec.Finished:
		j.violate("L2", "terminated at %v, state %s; %s", p.terminatedAt, rec.State, p.story(model.SyncTerminatedPod))
	case !rec.TerminationRequested && p.omittedAt != unset:
		j.violate("L1", "not desired at the SyncKnownPods of %v, state %s, yet its termination was never requested: it keeps running",
			p.omittedAt, rec.State)
	}
}

// quiescent judges L3 at quiescence (no input since QuiesceAt, drained):
// every accepted update was consumed and the worker is idle. The one
// update allowed to wait is a static pod's that cannot start yet
// (#116995); a pod that can still start must keep one.
func (j judgement) quiescent() {
	if !j.known {
		return
	}
	rec := j.rec
	waitingToStart := !rec.Started && !rec.TerminationRequested && !rec.Finished
	switch {
	case rec.InFlight:
		j.violate("L3", "state %s: a sync call is still in flight %v after the inputs stopped", rec.State, j.f.At-j.f.QuiesceAt)
	case rec.HasPendingUpdate && !(waitingToStart && j.cfg.Static):
		j.violate("L3", "state %s: an update (%s) is pending but was never consumed", rec.State, rec.PendingUpdateType)
	case rec.Working:
		j.violate("L3", "state %s: working is still set with no update pending or in flight", rec.State)
	case waitingToStart && !rec.HasPendingUpdate:
		j.violate("L3", "state %s: it can still start but has no pending update: the update that would start it was lost (#116995)", rec.State)
	case !rec.Finished && !rec.HasWorker:
		j.violate("L3", "state %s: it has no worker goroutine, so no later update would ever be consumed", rec.State)
	default:
		j.l.checked["L3"]++
	}
}

// deletion judges L7: a pod with a deletion timestamp reaches
// ShouldPodBeFinished (SyncTerminatedPod succeeded), the status manager's
// condition for the final API delete (#115331). This world has no API
// server yet: the delete itself (and K3) arrives with the status manager.
// A pod that left config is already gone from the API.
func (j judgement) deletion() {
	if !j.cfg.InConfig || !j.cfg.Deleted {
		return
	}
	var why string
	switch rec := j.rec; {
	case !j.known:
		why = "the pod workers do not know it"
	case rec.Finished:
		j.l.checked["L7"]++
		return
	case !rec.TerminationRequested:
		why = "its termination was never requested"
	case !rec.Terminated:
		why = j.p.story(model.SyncTerminatingPod)
	default:
		why = j.p.story(model.SyncTerminatedPod)
	}
	j.violate("L7", "state %s: it never reached ShouldPodBeFinished, so it would never be deleted from the API: %s", j.state(), why)
}

// restart judges the rest of L4: a purge for a restart owes a SyncPod one
// housekeeping period after the old incarnation finished (late ones were
// reported as they began), and a desired pod the workers forgot is
// re-created by the next housekeeping.
func (j judgement) restart() {
	p := j.p
	if j.cfg.Terminal || j.cfg.Rejected {
		return // not active: housekeeping restarts only active pods (K4)
	}
	if r := p.restart; r != nil && j.cfg.InConfig && r.since+j.l.periods.Housekeeping <= j.f.QuiesceAt {
		what := "it was never re-created"
		if j.known {
			what = fmt.Sprintf("it was re-created at %v (state %s), but SyncPod never ran", p.createdAt, j.rec.State)
		}
		j.violate("L4", "purged at %v for a restart (finished and asked for by %v); %s", r.purgedAt, r.since, what)
		return
	}
	if j.cfg.InConfig && !j.known && p.goneAt != unset && j.l.lastKnownAt > p.goneAt {
		j.violate("L4", "desired, but unknown to the pod workers since %v: the housekeeping of %v did not re-create it",
			p.goneAt, j.l.lastKnownAt)
	}
}

// retry judges L8: after a failed or cancelled call a later call came for
// the pod (a retry, or the next phase), unless nothing was left to retry
// (the pod finished, or left config and was purged: podTrack.update clears
// the error then). Errors younger than retryWithin when the inputs stopped
// are not judged.
func (j judgement) retry() {
	e := j.p.err
	if e == nil || e.at+j.l.periods.RetryWithin > j.f.QuiesceAt {
		return
	}
	j.violate("L8", "%s %s at %v (state %s), and no later sync call was ever made: it was never retried",
		e.fn, failedVerb(e.outcome), e.at, e.state)
}

// judgeStatic judges L5 per static full name: the started entry names a
// live pod, and when none is started the first eligible waiter started
// once nothing had blocked it for retryWithin.
func (l *liveness) judgeStatic(v oracle.View, f *oracle.Final, ev history.Event) {
	for _, name := range slices.Sorted(maps.Keys(f.Static)) {
		st := f.Static[name]
		if st.Started != "" {
			rec, ok := f.Pods[st.Started]
			switch {
			case !ok:
				l.violate("L5", ev, "static %s: the started entry names pod %s, which the pod workers no longer know: "+
					"no other pod of that name can ever start", name, st.Started)
			case rec.Finished:
				l.violate("L5", ev, "static %s: the started entry names pod %s, which finished: "+
					"no other pod of that name can ever start", name, st.Started)
			default:
				l.checked["L5"]++
			}
			continue
		}
		uid, ok := l.firstWaiter(v, f, name, st)
		if !ok {
			continue
		}
		since, by := l.track(uid).createdAt, uid
		for _, other := range l.uids {
			if c := v.Config(other); other != uid && c.Static && c.FullName == name && l.pods[other].changedAt > since {
				since, by = l.pods[other].changedAt, other
			}
		}
		if since+l.periods.RetryWithin > f.QuiesceAt {
			continue
		}
		l.violate("L5", ev, "pod %s (static %s): waiting to start since %v (state %s, first eligible waiter); nothing has blocked "+
			"it since %v, when pod %s last changed, yet it never started: SyncPod never ran [%s]",
			uid, name, l.pods[uid].createdAt, f.Pods[uid].State, since, by, f.Pods[uid])
	}
}

// firstWaiter is the static pod of name that should start next: the first
// of the wait list (then any other unstarted record of the name, by UID)
// that is desired, not started and not being torn down.
func (l *liveness) firstWaiter(v oracle.View, f *oracle.Final, name string, st oracle.StaticState) (types.UID, bool) {
	order := slices.Clone(st.Waiting)
	for _, uid := range slices.Sorted(maps.Keys(f.Pods)) {
		if c := v.Config(uid); c.Static && c.FullName == name {
			order = append(order, uid)
		}
	}
	for _, uid := range order {
		rec, ok := f.Pods[uid]
		if ok && !rec.Started && !rec.TerminationRequested && !rec.Terminated && v.Config(uid).InConfig {
			return uid, true
		}
	}
	return "", false
}
