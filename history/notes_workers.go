package history

import (
	"time"

	"k8s.io/apimachinery/pkg/types"
)

// The pod workers' goroutines, for the leak rule (oracle/liveness L10): a
// target that runs the pod workers on a runtime it controls notes each
// worker goroutine as it starts and as it returns, and, after the run's
// Settled and the workers' Shutdown, the end of a bounded drain in which
// every worker should have returned (Shutdown's contract: each worker ends
// once its current sync call returns). These are the only events a target
// sends after Settled. A target that notes none of them (the real kubelet's
// harness) is not judged by L10.

// WorkerStarted: the pod workers of kubelet process Kubelet (0, then one
// more per restart) started the goroutine Goroutine (worker/<uid>[#<n>])
// for UID. The event's goroutine is the caller that started it.
type WorkerStarted struct {
	Goroutine string
	UID       types.UID
	Kubelet   int
}

// WorkerEnded: that goroutine returned (noted from it, as its last act).
type WorkerEnded struct {
	Goroutine string
	UID       types.UID
	Kubelet   int
}

// WorkerDrainEnded: the drain after Settled is over, Waited after it began
// (at most Bound, the longest the target's contract lets a stopped worker
// take). Stuck lists the worker goroutines still running then, in the order
// they started, each with what it was last seen waiting for.
type WorkerDrainEnded struct {
	Bound, Waited time.Duration
	Stuck         []StuckWorker
}

// StuckWorker is one worker goroutine still running at the end of the
// drain: Waiting says what it was last seen doing ("waiting on signal
// updates/a", "in SyncPod since 12s"), "" when the target does not know.
type StuckWorker struct {
	Goroutine string
	Kubelet   int
	Waiting   string
}

func (WorkerStarted) isNote()    {}
func (WorkerEnded) isNote()      {}
func (WorkerDrainEnded) isNote() {}
