// Package coverage records the abstract states a run passed through: per
// pod, a tuple of what a caller of the pod workers could see at that
// instant, and the transitions between consecutive tuples of one pod. It
// reads only the event stream and the target's View, like an oracle, so it
// works on every kubelet target that emits the history's events; it judges
// nothing. The guided strategy keeps the runs that reach tuples or
// transitions no earlier run reached. The virtual-kubelet targets' tuple
// is package oracle/vkcoverage's; both record theirs in a Recorder
// (recorder.go), and a run's Coverage is the same type for both.
//
// A tuple has seven fields, separated by '|':
//
//	state    the SPEC §1.2 state the query answers show (P S TR T D F), or
//	         "?" before the first answer (or on a target without Workers)
//	work     the callback in flight: - sync term rt-term terminated, with
//	         "+cancel" once its cancellation fired
//	pending  the kind of the newest UpdatePod that arrived while a callback
//	         was in flight (- sync update create kill)
//	kill     the kill situation: - (none), grace (killed with a grace
//	         period), grace0 (with none), short (a later kill shortened the
//	         grace), now (a KillPodNow waits for completion)
//	static   the static-pod start exclusion: - (not static), run (started),
//	         head (first in line for its full name), queued (behind another)
//	world    the kubelet actors' phase: run, shutdown, shut (shutdown
//	         done), cancelled (its cancellation read), with "+restarted"
//	         after a kubelet restart
//	call     the kind of the newest UpdatePod for the pod (- sync update
//	         create kill, "rt-" before it for a runtime-only one, "+del"
//	         after it once the pod carries a deletion timestamp)
//
// Asked by the near-miss tracker (StoppedCalls, shutdown.go), it also names
// by the pod's tuple each UpdatePod that reaches the pod workers after a
// restart shut them down: a near miss of L10.
package coverage

import (
	"fmt"

	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/model/ops"
	"github.com/podsim/podsim/oracle"
)

// Coverage is what one run reached: its tuples, sorted, and its
// transitions as pairs of indices into Tuples, sorted.
type Coverage struct {
	Tuples      []string
	Transitions [][2]int
	// Near are the oracles' near misses the run met (Recorder.Near,
	// package oracle/nearmiss), sorted: keys of the guided corpus beside
	// the tuples and transitions; simrun's --json does not write them.
	Near []string
}

// TransitionKeys names each transition "from>to" with the tuples' text, so
// transitions of different runs compare.
func (c Coverage) TransitionKeys() []string {
	out := make([]string, len(c.Transitions))
	for i, t := range c.Transitions {
		out[i] = c.Tuples[t[0]] + ">" + c.Tuples[t[1]]
	}
	return out
}

// pod is what the tracker knows of one UID.
type pod struct {
	state, work, pending, kill string
	call                       string
	cancelled, started, static bool
	fullName                   string
	grace                      int64 // the kill's grace, while kill is grace or short
	done                       bool  // SyncTerminatedPod returned: its static name is free
	last                       int   // its last tuple's handle in Tracker.rec (Recorder.Visit), 0 before the first
}

// Tracker is the observer: New, then Observe every event, then Coverage.
type Tracker struct {
	pods         map[string]*pod
	freePods     []*pod   // the records of the runs before Reset, for pod to reuse (only pods holds a record)
	order        []string // UIDs in order of first sight (static queue order)
	callUID      map[string]string
	phase        string
	restart      bool
	rec          Recorder     // the tuples and transitions reached
	waits        []openWait   // the KillPodNow waits in flight (killnow.go)
	buf          []byte       // visit's tuple, built in place
	calls        []openUpdate // the UpdatePod calls in flight (shutdown.go)
	workersNoted bool         // the target notes its worker goroutines
	stoppedCalls bool         // record the calls after Shutdown (StoppedCalls)
}

// New returns an empty tracker.
func New() *Tracker {
	t := &Tracker{pods: map[string]*pod{}, callUID: map[string]string{}, phase: "run"}
	t.rec.init()
	return t
}

// Reset empties t for a new run, as New would make it: its maps and
// buffers emptied and kept (a lane's consecutive seeds reuse one,
// run.Lane). A Coverage taken before stays as it was.
func (t *Tracker) Reset() {
	free := t.freePods
	for _, uid := range t.order {
		free = append(free, t.pods[uid])
	}
	clear(t.pods)
	clear(t.callUID)
	*t = Tracker{pods: t.pods, order: t.order[:0], callUID: t.callUID, phase: "run", rec: t.rec, waits: t.waits[:0],
		buf: t.buf[:0], freePods: free, calls: t.calls[:0]}
	t.rec.reset()
}

func (t *Tracker) pod(uid string) *pod {
	p := t.pods[uid]
	if p == nil {
		p = history.Reuse(&t.freePods)
		*p = pod{state: "?", work: "-", pending: "-", kill: "-", call: "-"}
		t.pods[uid] = p
		t.order = append(t.order, uid)
	}
	return p
}

// Observe follows one event; v is read only at LockReleasing, when its
// Workers answers are valid.
func (t *Tracker) Observe(v oracle.View, ev *history.Event) {
	if ev.Kind == history.Noted {
		t.noted(ev.Note)
		return
	}
	switch ev.Kind {
	case history.Restarted:
		t.shutdown()
		t.restart = true
		t.pods, t.order, t.callUID, t.waits = map[string]*pod{}, nil, map[string]string{}, t.waits[:0]
		return
	case history.LockReleasing:
		t.released(v, ev)
		return
	case history.LockAcquired:
		t.locked(ev.Goroutine)
		return
	case history.ClientReturn:
		t.returned(ev.ID)
		if uid := t.waitReturned(ev.ID); uid != "" && t.pods[uid] != nil {
			t.visit(uid)
		}
		return
	}
	uid := t.event(ev)
	if uid != "" {
		t.visit(uid)
	}
}

// event applies one event of the stream and returns the UID it is about.
func (t *Tracker) event(ev *history.Event) string {
	switch in := ev.Input.(type) {
	case ops.UpdatePod:
		if ev.Kind == history.ClientCall {
			t.callUID[ev.Goroutine] = in.Pod.UID
			t.update(in)
			if t.stoppedCalls { // only the near misses read them (shutdown.go)
				t.calls = append(t.calls, openUpdate{id: ev.ID, goroutine: ev.Goroutine, uid: in.Pod.UID})
			}
			return in.Pod.UID
		}
	case ops.KillPodNowDone:
		if ev.Kind != history.ClientCall {
			return ""
		}
		t.pod(in.UID) // (its kill, an UpdatePod, recorded it: visit reads it)
		t.waitBegan(ev.ID, in.UID)
		return in.UID
	case ops.SyncBegin:
		p := t.pod(in.UID)
		p.work, p.pending, p.cancelled = workName(in.Fn), "-", false
		if in.Fn == ops.SyncPod {
			p.started = true
		}
		return in.UID
	case ops.SyncEnd:
		p := t.pod(in.UID)
		p.work, p.cancelled = "-", false
		if in.Fn == ops.SyncTerminatedPod && in.Outcome == ops.OK {
			p.done = true
		}
		return in.UID
	case ops.CancelFired:
		if p := t.pod(in.UID); p.work != "-" {
			p.cancelled = true
		}
		return in.UID
	case ops.CompletionFired:
		return in.UID
	}
	return ""
}

// update applies an UpdatePod call.
func (t *Tracker) update(in ops.UpdatePod) {
	p := t.pod(in.Pod.UID)
	if in.Pod.Static {
		p.static, p.fullName = true, in.Pod.Namespace+"/"+in.Pod.Name
	}
	if in.Type == ops.Create && p.done {
		// A create after the record finished is a new incarnation.
		*p = pod{state: p.state, work: "-", pending: "-", kill: "-", static: p.static, fullName: p.fullName, last: p.last}
	}
	p.call = in.Type.String()
	if in.RuntimeOnly {
		p.call = "rt-" + p.call
	}
	if in.Pod.DeletionTimestamp {
		p.call += "+del"
	}
	if p.work != "-" {
		p.pending = in.Type.String()
	}
	grace, hasGrace := killGrace(in)
	if !hasGrace {
		return
	}
	switch {
	case p.kill == "-" || p.kill == "grace0" && grace > 0:
		p.kill, p.grace = "grace", grace
		if grace == 0 {
			p.kill = "grace0"
		}
	case grace < p.grace:
		p.kill, p.grace = "short", grace
	}
}

// killGrace is the grace period a kill (or a delete) asks for, if in is one.
func killGrace(in ops.UpdatePod) (int64, bool) {
	switch {
	case in.Type == ops.Kill && in.Kill.HasGraceOverride:
		return in.Kill.GraceOverride, true
	case in.Pod.DeletionTimestamp && in.Pod.HasDeletionGrace:
		return in.Pod.DeletionGrace, true
	case in.Type == ops.Kill || in.Pod.DeletionTimestamp:
		return in.Pod.SpecGrace, true
	}
	return 0, false
}

// released reads the query answers for the UID the releasing goroutine
// works on: its worker's, or its open call's.
func (t *Tracker) released(v oracle.View, ev *history.Event) {
	uid, _, isWorker := history.WorkerOf(ev.Goroutine)
	if !isWorker {
		uid = t.callUID[ev.Goroutine]
	}
	if uid == "" || ev.Probe == nil {
		return
	}
	t.answered(uid, t.pod(uid), ev.Probe)
}

// answered reads uid's state from the query answers in probe and visits
// its tuple.
func (t *Tracker) answered(uid string, p *pod, probe *history.Probe) {
	a := probe.Answers(types.UID(uid))
	if a.Known {
		p.state = oracle.StateLetter(a, p.started)
	} else {
		p.state = "-"
	}
	t.visitPod(uid, p)
}

// noted follows the kubelet actors' phase.
func (t *Tracker) noted(n history.Note) {
	switch n.(type) {
	case history.WorkerStarted:
		t.workersNoted = true
	case history.ShutdownBegins:
		t.phase = "shutdown"
	case history.ShutdownDone:
		t.phase = "shut"
	case history.ShutdownCancelled:
		t.phase = "cancelled"
	}
}

// visit records uid's tuple now, and the transition to it.
func (t *Tracker) visit(uid string) { t.visitPod(uid, t.pods[uid]) }

// visitPod is visit of uid's pod p.
func (t *Tracker) visitPod(uid string, p *pod) {
	t.buf = t.appendTuple(t.buf[:0], uid, p)
	p.last = t.rec.Visit(p.last, t.buf)
}

// appendTuple appends uid's tuple to b: state|work|pending|kill|static|world|call.
func (t *Tracker) appendTuple(b []byte, uid string, p *pod) []byte {
	b = append(append(b, p.state...), '|')
	b = append(b, p.work...)
	if p.cancelled {
		b = append(b, "+cancel"...)
	}
	b = append(append(append(b, '|'), p.pending...), '|')
	if len(t.waits) > 0 && t.waiting(uid) {
		b = append(b, "now"...)
	} else {
		b = append(b, p.kill...)
	}
	b = append(append(append(b, '|'), t.staticPosition(uid, p)...), '|')
	b = append(b, t.phase...)
	if t.restart {
		b = append(b, "+restarted"...)
	}
	return append(append(b, '|'), p.call...)
}

// staticPosition places a static pod in its full name's start line: the
// pods of that name seen before it and not yet done are ahead of it.
func (t *Tracker) staticPosition(uid string, p *pod) string {
	switch {
	case !p.static:
		return "-"
	case p.started:
		return "run"
	}
	for _, other := range t.order {
		if other == uid {
			return "head"
		}
		q := t.pods[other]
		if q.static && q.fullName == p.fullName && !q.done {
			return "queued"
		}
	}
	return "head"
}

// Coverage returns what the run reached so far.
func (t *Tracker) Coverage() Coverage { return t.rec.Coverage() }

// Near records an oracle's near miss (Recorder.Near): the tracker is the
// near-miss tracker's sink (package oracle/nearmiss).
func (t *Tracker) Near(rule, situation string) { t.rec.Near(rule, situation) }

func workName(fn ops.SyncFn) string {
	switch fn {
	case ops.SyncPod:
		return "sync"
	case ops.SyncTerminatingPod:
		return "term"
	case ops.SyncTerminatingRuntimePod:
		return "rt-term"
	case ops.SyncTerminatedPod:
		return "terminated"
	}
	return fmt.Sprintf("fn%d", fn)
}
