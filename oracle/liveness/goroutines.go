package liveness

import (
	"fmt"
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/oracle"
)

// L10, no leaked worker goroutine (goleak-style, as etcd's tests fail on a
// goroutine still running when a test ends): every pod-worker goroutine
// the run started (history.WorkerStarted) has returned (WorkerEnded) by the
// end of the drain that follows Settled and the workers' Shutdown
// (WorkerDrainEnded). Shutdown's contract is that each worker returns once
// its current sync call does; a worker still running then waits for
// something that will never come (a purged or stopped record whose signal
// was never closed), and the run's end would unwind it silently.
//
// The rule reads these notes only, across kubelet restarts (a stopped
// process's workers must end too, whenever they do), so it is one oracle
// per run, not per epoch: the per-epoch oracles see no notes. A goroutine
// is its name and its kubelet process (names repeat across restarts). A
// run without a drain note is not judged: a target that does not note its
// workers' goroutines (the real kubelet's harness), or a run that failed
// before the drain.

// NewWorkerLeaks returns the L10 oracle.
func NewWorkerLeaks() oracle.Oracle {
	return &workerLeaks{}
}

type workerID struct {
	goroutine string
	kubelet   int
}

// workerStart is when and by whom a goroutine still running was started.
type workerStart struct {
	uid   types.UID
	at    time.Duration
	by    string
	order int
}

type workerLeaks struct {
	live    history.Few[workerID, workerStart]
	started int
	drained bool
	out     []history.Violation
}

// Reset implements oracle.Resetter.
func (o *workerLeaks) Reset() {
	o.live.Reset()
	*o = workerLeaks{live: o.live}
}

// Kinds implements oracle.KindFilter.
func (o *workerLeaks) Kinds() oracle.Kinds { return oracle.KindsOf(history.Noted) }

// Observe implements oracle.Oracle.
func (o *workerLeaks) Observe(_ oracle.View, ev *history.Event) {
	if ev.Kind != history.Noted || o.drained {
		return
	}
	switch n := ev.Note.(type) {
	case history.WorkerStarted:
		o.live.Set(workerID{n.Goroutine, n.Kubelet}, workerStart{uid: n.UID, at: ev.At, by: ev.Goroutine, order: o.started})
		o.started++
	case history.WorkerEnded:
		o.live.Del(workerID{n.Goroutine, n.Kubelet})
	case history.WorkerDrainEnded:
		o.drained = true
		o.judge(ev, n)
	}
}

// judge reports every worker goroutine still running at the drain's end,
// in the order they started.
func (o *workerLeaks) judge(ev *history.Event, d history.WorkerDrainEnded) {
	waiting := map[workerID]string{}
	for _, s := range d.Stuck {
		waiting[workerID{s.Goroutine, s.Kubelet}] = s.Waiting
	}
	ids := slices.Clone(o.live.Keys())
	order := func(id workerID) int { s, _ := o.live.Get(id); return s.order }
	slices.SortFunc(ids, func(a, b workerID) int { return order(a) - order(b) })
	for _, id := range ids {
		s, _ := o.live.Get(id)
		why := waiting[id]
		if why == "" {
			why = "the target did not say what it waits for"
		} else {
			why = "last " + why
		}
		o.out = append(o.out, history.Violation{Oracle: "liveness", Invariant: "L10", At: ev.At, Seq: ev.Seq,
			Message: fmt.Sprintf("worker goroutine %s (pod %s, kubelet process %d), started at %v by %s, "+
				"is still running %v after the workers' Shutdown (the drain's bound is %v): %s",
				id.goroutine, s.uid, id.kubelet, s.at, s.by, d.Waited, d.Bound, why)})
	}
}

// Finish implements oracle.Oracle.
func (o *workerLeaks) Finish(oracle.View, error) []history.Violation { return o.out }
