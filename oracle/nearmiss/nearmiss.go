// Package nearmiss records how close a run came to an oracle's violation:
// the situations in which one of the oracles' rules met its precondition
// and held, each as a short deterministic key. Coverage's tuples name the
// states a run passed through; a near miss names a window in which a
// wrong implementation would have been caught — a query answered while a
// callback's outcome was still on its way into the workers' record, a call
// in flight as its kubelet process's pod workers shut down, a killPodNow
// wait that ended close to its timeout. The guided loop keeps the runs
// that reach a near miss no earlier run reached, and a corpus rerun runs
// the rarest first, so the runs that came closest are tried first on new
// code.
//
// It is an observer beside the oracles: it reads the same history events,
// never a world or a target, judges nothing and tells its keys to a Sink
// (the coverage tracker, whose Coverage lists them as Near). The keys are
// derived from the rules' own conditions, each named "<oracle>/<rule
// situation>":
//
//	linearize/query-in-transit/<query>/<callback>-<outcome>/<stage>
//	    a client's query of a pod was called and returned while the pod's
//	    worker was between the end of a callback whose outcome moves the
//	    pod (a terminal SyncPod, a failed or cancelled callback, an ended
//	    termination) and the start of its next callback: the answer must
//	    already show the outcome, which the workers record in steps
//	    (stage: "ended", the worker has not released the pod lock since
//	    the callback returned; "applied", it has; "ended-applied", it did
//	    during the query)
//	liveness/L10/open-at-restart/<call>
//	    a client call into the pod workers was in flight when the kubelet
//	    restarted and its pod workers shut down: a worker the call starts
//	    after Shutdown would never end
//	liveness/L10/worker-after-shutdown
//	    a worker goroutine was started by pod workers already shut down
//	liveness/L10/call-after-shutdown/<tuple>
//	    an UpdatePod not yet past the pod lock when the kubelet restarted:
//	    it reaches the stopping process's pod workers after their Shutdown,
//	    which must drop it, by the pod's coverage tuple then; the coverage
//	    tracker records it when New asks (coverage.Tracker.StoppedCalls)
//	liveness/L10/drain-waited/q<n>
//	    the end-of-run drain waited for a worker, n quarters of its bound
//	runtime/R2-killnow/terminated-q<n>, runtime/R2-killnow/timed-out
//	    a killPodNow wait returned "terminated" within the nth quarter of
//	    its timeout, or timed out exactly at it
//
// The virtual-kubelet oracle's near misses are VKTracker's (vk.go).
package nearmiss

import (
	"fmt"
	"time"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/model/ops"
	"github.com/podsim/podsim/oracle"
	"github.com/podsim/podsim/oracle/latency"
)

// Sink is told every near miss: rule names the oracle's rule, situation
// how it was met. The same pair may come many times.
type Sink interface {
	Near(rule, situation string)
}

// Rule names, the first part of every key.
const (
	Linearize = "linearize"
	L10       = "liveness/L10"
	R2        = "runtime/R2-killnow"
)

// transit is a pod's worker between a callback's end and its next begin.
type transit struct {
	what    string // "<callback>-<outcome>", "" while no such window is open
	applied bool   // the worker released the pod lock since the end
	gen     int    // counts the pod's windows: a query straddling two is in none
}

// query is an open query call: its pod, its kind, and the pod's window at
// the call.
type query struct {
	uid     string
	kind    ops.QueryKind
	gen     int
	applied bool
}

// killWait is an open killPodNow wait.
type killWait struct {
	began   time.Duration
	timeout time.Duration
}

// Tracker is the observer: New, then Observe every event.
type Tracker struct {
	sink    Sink
	pods    map[string]*transit
	queries map[int]query  // open query calls by call ID
	open    map[int]string // every open client call by ID: its kind
	process int            // the kubelet process: 0, one more per restart
	kills   map[string]int64
	killIDs map[string]int
	waits   map[int]killWait
}

// New returns a tracker that tells s its near misses. A sink that can also
// name the UpdatePods the stopped pod workers meet by the pod's tuple (the
// coverage tracker's StoppedCalls, which holds the tuples) is asked to.
func New(s Sink) *Tracker {
	if sc, ok := s.(interface{ StoppedCalls() }); ok {
		sc.StoppedCalls()
	}
	t := &Tracker{sink: s, pods: map[string]*transit{}}
	t.reset()
	return t
}

// reset forgets the calls in flight (a restart closes their history).
func (t *Tracker) reset() {
	t.queries, t.open, t.waits = map[int]query{}, map[int]string{}, map[int]killWait{}
	t.kills, t.killIDs = map[string]int64{}, map[string]int{}
}

// Observe follows one event.
func (t *Tracker) Observe(_ oracle.View, ev *history.Event) {
	switch ev.Kind {
	case history.Noted:
		t.noted(ev.Note)
	case history.Restarted:
		for _, call := range t.open {
			t.sink.Near(L10, "open-at-restart/"+call)
		}
		t.process++
		t.pods = map[string]*transit{}
		t.reset()
	case history.ClientCall:
		t.call(ev)
	case history.ClientReturn:
		t.returned(ev)
	case history.CallbackBegin:
		if in, ok := ev.Input.(ops.SyncBegin); ok {
			t.pod(in.UID).what = ""
		}
	case history.CallbackEnd:
		if in, ok := ev.Input.(ops.SyncEnd); ok {
			p := t.pod(in.UID)
			p.what, p.applied, p.gen = movesThePod(in), false, p.gen+1
		}
	case history.LockReleasing:
		if uid, _, ok := history.WorkerOf(ev.Goroutine); ok {
			if p := t.pods[uid]; p != nil && p.what != "" {
				p.applied = true
			}
		}
	}
}

func (t *Tracker) pod(uid string) *transit {
	p := t.pods[uid]
	if p == nil {
		p = &transit{}
		t.pods[uid] = p
	}
	return p
}

// movesThePod names a callback's end if its outcome changes what the
// queries answer once the worker records it: "" for the steady ends (a
// SyncPod that keeps the pod running, a SyncTerminatedPod that finished).
func movesThePod(e ops.SyncEnd) string {
	switch {
	case e.Outcome == ops.OK && e.Fn == ops.SyncPod && !e.IsTerminal, e.Outcome == ops.OK && e.Fn == ops.SyncTerminatedPod:
		return ""
	case e.Fn == ops.SyncPod && e.IsTerminal:
		return "SyncPod-terminal"
	}
	return e.Fn.String() + "-" + e.Outcome.String()
}

// call opens a client call.
func (t *Tracker) call(ev *history.Event) {
	t.open[ev.ID] = callName(ev.Input)
	switch in := ev.Input.(type) {
	case ops.Query:
		if in.UID != "" {
			p := t.pod(in.UID)
			t.queries[ev.ID] = query{uid: in.UID, kind: in.Kind, gen: p.gen, applied: p.applied}
		}
	case ops.UpdatePod:
		if in.Kill.CompletionID != 0 {
			grace := in.Pod.SpecGrace
			if in.Kill.HasGraceOverride {
				grace = in.Kill.GraceOverride
			}
			t.kills[ev.Goroutine], t.killIDs[ev.Goroutine] = grace, in.Kill.CompletionID
		}
	case ops.KillPodNowDone:
		if id, ok := t.killIDs[ev.Goroutine]; ok && id == in.ID {
			t.waits[ev.ID] = killWait{began: ev.At, timeout: latency.KillTimeout(t.kills[ev.Goroutine])}
		}
	}
}

// returned closes a client call.
func (t *Tracker) returned(ev *history.Event) {
	delete(t.open, ev.ID)
	if q, ok := t.queries[ev.ID]; ok {
		delete(t.queries, ev.ID)
		if p := t.pods[q.uid]; p.what != "" && p.gen == q.gen {
			stage := "ended"
			switch {
			case q.applied:
				stage = "applied"
			case p.applied:
				stage = "ended-applied"
			}
			t.sink.Near(Linearize, "query-in-transit/"+q.kind.String()+"/"+p.what+"/"+stage)
		}
	}
	if w, ok := t.waits[ev.ID]; ok {
		delete(t.waits, ev.ID)
		if answer, _ := ev.Output.(ops.Answer); !answer {
			if ev.At-w.began == w.timeout {
				t.sink.Near(R2, "timed-out")
			}
			return
		}
		if waited := ev.At - w.began; waited <= w.timeout {
			t.sink.Near(R2, fmt.Sprintf("terminated-q%d", quarter(waited, w.timeout)))
		}
	}
}

// noted follows the worker goroutines' notes (L10's).
func (t *Tracker) noted(n history.Note) {
	switch n := n.(type) {
	case history.WorkerStarted:
		if n.Kubelet < t.process {
			t.sink.Near(L10, "worker-after-shutdown")
		}
	case history.WorkerDrainEnded:
		if n.Waited > 0 && n.Waited <= n.Bound && len(n.Stuck) == 0 {
			t.sink.Near(L10, fmt.Sprintf("drain-waited/q%d", quarter(n.Waited, n.Bound)))
		}
	}
}

// quarter is the quarter (1 to 4) of bound that d, 0 < d ≤ bound, falls in.
func quarter(d, bound time.Duration) int {
	if bound <= 0 {
		return 4
	}
	return min(4, max(1, int((4*d+bound-1)/bound)))
}

// callName is the kind of a client call, for the L10 keys.
func callName(in ops.Input) string {
	switch in := in.(type) {
	case ops.UpdatePod:
		name := in.Type.String()
		if in.RuntimeOnly {
			name = "rt-" + name
		}
		return "UpdatePod-" + name
	case ops.Query:
		return "Query"
	case ops.KillPodNowDone:
		return "KillPodNow"
	case ops.SyncKnownPods:
		return "SyncKnownPods"
	}
	return fmt.Sprintf("%T", in)
}
