package liveness

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/model/ops"
	"github.com/podsim/podsim/oracle"
)

// judge gives the verdict at Settled from what the history showed: each
// pod's last query answers (its LockReleasing probes), its sync calls (the
// callbacks) and the updates it was handed, with the config source's view
// of it and the settle phase's timing (View.Settle). It reads no record of
// the target (docs/design.md, "Observable-only judging"). Pods are judged
// in UID order, static full names in name order, so messages come out in a
// stable order.
func (l *liveness) judge(v oracle.View, ev *history.Event) {
	st := v.Settle()
	if st == nil {
		l.violate("settle", ev, "Settled came without the settle phase's timing: nothing was judged")
		return
	}
	for _, uid := range l.uids {
		j := judgement{l: l, p: l.pod(uid), cfg: v.Config(uid), st: st, ev: ev}
		j.record()
		j.quiescent()
		j.deletion()
		j.restart()
		j.retry()
	}
	l.judgeStatic(v, st, ev)
}

// judgement is one pod's verdict at Settled.
type judgement struct {
	l   *liveness
	p   *podTrack
	cfg oracle.PodConfig
	st  *oracle.Settle
	ev  *history.Event
}

func (j judgement) violate(invariant, format string, args ...any) {
	j.l.violate(invariant, j.ev, "%s: %s [%s]", j.name(), fmt.Sprintf(format, args...), answersString(j.p.cur))
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

// answersString lists the queries that answered true at the last release
// of the pod lock ("no record" for an unknown UID).
func answersString(a oracle.Answers) string {
	if !a.Known {
		return "no record"
	}
	var on []string
	for _, q := range []struct {
		name string
		set  bool
	}{{"termination requested", a.TerminationRequested}, {"known terminated", a.KnownTerminated},
		{"should be finished", a.BeFinished}, {"could have running containers", a.CouldHaveRunning},
		{"containers should be terminating", a.ContainersBeTerminating}, {"runtime should be removed", a.RuntimeBeRemoved},
		{"content should be removed", a.ContentBeRemoved}} {
		if q.set {
			on = append(on, q.name)
		}
	}
	return "last answers: " + strings.Join(append([]string{"known"}, on...), ", ")
}

func (j judgement) state() string { return j.p.state(j.p.cur) }

// record judges the pod's phase from its last answers: L5 for a static pod
// killed while waiting to start, L1 (termination requested ⇒ terminated; a
// pod that left config is terminated), L2 (terminated ⇒ finished; an
// unstarted orphan is purged). A running pod in config that nobody killed
// is settled.
func (j judgement) record() {
	a, p := j.p.cur, j.p
	switch {
	case !a.Known:
	case j.cfg.Static && !p.started() && a.TerminationRequested && a.BeFinished:
		j.l.checked[5]++ // killed while waiting, and cleaned up
	case j.cfg.Static && !p.started() && a.TerminationRequested:
		j.violate("L5", "killed at %v while waiting to start (state %s), but it never finished: "+
			"the cleanup of a pod that can never start never ran (no sync call is owed)", p.requestedAt, j.state())
	case !p.started() && !p.sawRuntime && !a.BeFinished && p.omittedAt != unset:
		j.violate("L2", "never started and never seen at runtime (state %s), not desired at the SyncKnownPods of %v, "+
			"yet never purged", j.state(), p.omittedAt)
	case a.TerminationRequested && !a.KnownTerminated:
		j.violate("L1", "termination requested at %v, state %s; %s", p.requestedAt, j.state(), p.story(ops.SyncTerminatingPod))
	case a.KnownTerminated && !a.BeFinished:
		j.violate("L2", "terminated at %v, state %s; %s", p.terminatedAt, j.state(), p.story(ops.SyncTerminatedPod))
	case !a.TerminationRequested && p.omittedAt != unset:
		j.violate("L1", "not desired at the SyncKnownPods of %v, state %s, yet its termination was never requested: it keeps running",
			p.omittedAt, j.state())
	}
}

// quiescent judges L3 at quiescence (no input since QuiesceAt, drained):
// no sync call of the pod is in flight, and every update it was handed and
// owed a take (bounded.go: not a static pod's before it started, which may
// wait for its full name; L5 judges those) was taken.
func (j judgement) quiescent() {
	p := j.p
	switch {
	case p.busy():
		j.violate("L3", "state %s: a sync call (%s) is still in flight %v after the inputs stopped",
			j.state(), p.inFlightFn(), j.st.At-j.st.QuiesceAt)
	case p.due != nil:
		j.violate("L3", "state %s: an update (%s, at %v, %d update(s)) is pending but was never consumed",
			j.state(), p.due.typ, p.due.at, p.due.updates)
	case p.cur.Known:
		j.l.checked[3]++
	}
}

// deletion judges L7: a pod with a deletion timestamp reaches
// ShouldPodBeFinished (SyncTerminatedPod succeeded), the status manager's
// condition for the final API delete (#115331). This world has no API
// server yet: the delete itself (and K3) arrives with the status manager.
// A pod that left config is already gone from the API. A static pod owes
// no API delete: it has no API object (its mirror pod is another object,
// which the status manager never deletes), so L7 does not judge it; its
// termination is still L1's, L2's and L5's (a plain plan may give a static
// pod a deletion timestamp, which no real config source does).
func (j judgement) deletion() {
	if !j.cfg.InConfig || !j.cfg.Deleted || j.cfg.Static {
		return
	}
	var why string
	switch a := j.p.cur; {
	case !a.Known:
		why = "the pod workers do not know it"
	case a.BeFinished:
		j.l.checked[7]++
		return
	case !a.TerminationRequested:
		why = "its termination was never requested"
	case !a.KnownTerminated:
		why = j.p.story(ops.SyncTerminatingPod)
	default:
		why = j.p.story(ops.SyncTerminatedPod)
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
	if r := p.restart; r != nil && j.cfg.InConfig && r.since+j.l.periods.Housekeeping <= j.st.QuiesceAt {
		what := "it was never re-created"
		if p.cur.Known {
			what = fmt.Sprintf("it was re-created at %v (state %s), but SyncPod never ran", p.createdAt, j.state())
		}
		j.violate("L4", "purged at %v for a restart (finished and asked for by %v); %s", r.purgedAt, r.since, what)
		return
	}
	if j.cfg.InConfig && !p.cur.Known && p.goneAt != unset && j.l.lastKnownAt > p.goneAt {
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
	if e == nil || e.retryFrom+j.l.periods.RetryWithin > j.st.QuiesceAt {
		return
	}
	j.violate("L8", "%s %s at %v (state %s), and no later sync call was ever made: it was never retried",
		e.fn, failedVerb(e.outcome), e.at, e.state)
}

// judgeStatic judges L5 per static full name, from the pods the history
// showed under it: when no pod holds the name (none started in its current
// incarnation and unfinished, SPEC §1.10: the started entry is cleared when
// its pod finishes), a waiter (desired, known, not started, not being torn
// down) must have started once nothing had changed among the name's pods
// for retryWithin before quiesce: every refused waiter is retried within
// it, and the first eligible one is then allowed.
func (l *liveness) judgeStatic(v oracle.View, st *oracle.Settle, ev *history.Event) {
	byName := map[string][]*podTrack{}
	for _, uid := range l.uids {
		if c := v.Config(uid); c.Static {
			byName[c.FullName] = append(byName[c.FullName], l.pod(uid))
		}
	}
	names := make([]string, 0, len(byName)) // at its size: slices.Sorted grows it from nothing
	for name := range byName {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		pods := byName[name]
		if slices.ContainsFunc(pods, holds) {
			l.checked[5]++
			continue
		}
		var first *podTrack
		waiting := 0
		since, by := unset, types.UID("")
		for _, p := range pods {
			if p.changedAt > since {
				since, by = p.changedAt, p.uid
			}
			if !waits(p, v.Config(p.uid)) {
				continue
			}
			waiting++
			if first == nil || p.createdAt < first.createdAt {
				first = p
			}
		}
		if first == nil || since+l.periods.RetryWithin > st.QuiesceAt {
			continue
		}
		l.violate("L5", ev, "pod %s (static %s): waiting to start since %v (state %s, the first of %d waiter(s)); no pod of the name "+
			"holds it and nothing has changed among them since %v, when pod %s last changed, yet none started: SyncPod never ran [%s]",
			first.uid, name, first.createdAt, first.state(first.cur), waiting, since, by, answersString(first.cur))
	}
}

// holds reports whether p holds its static full name: started in its
// current incarnation and not finished.
func holds(p *podTrack) bool { return p.cur.Known && p.started() && !p.cur.BeFinished }

// waits reports whether p waits to start under its static full name: known,
// desired, never started, and neither being torn down nor done.
func waits(p *podTrack, c oracle.PodConfig) bool {
	a := p.cur
	return a.Known && c.InConfig && !p.started() && !a.TerminationRequested && !a.KnownTerminated && !a.BeFinished
}
