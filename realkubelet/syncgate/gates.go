// Package syncgate is the syncer the real pod workers call back: every
// sync callback parks at a gate (a channel receive inside the synctest
// bubble) until the driver releases it with an outcome; it also keeps the
// work queue's memory, the held wake-ups of the worker goroutines (the
// upstream hook podWorkers.workerChannelFn) and, in plain mode, the worker
// channels it watches for teardown. Between two driver steps exactly one
// goroutine touches it.
package syncgate

import (
	"context"
	"fmt"
	"slices"
	"sync"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	kubecontainer "k8s.io/kubernetes/pkg/kubelet/container"
	kubetypes "k8s.io/kubernetes/pkg/kubelet/types"

	"github.com/podsim/podsim/model/ops"
	"github.com/podsim/podsim/realdriver"
)

// Call is one sync callback of the real pod workers, parked at its gate
// until the driver releases it with an outcome. Parking is a receive on a
// channel made inside the synctest bubble, so a parked worker is durably
// blocked and synctest.Wait returns only once every worker has reached a
// gate or gone idle: between two driver steps nothing runs.
type Call struct {
	UID   types.UID
	Fn    ops.SyncFn
	Type  kubetypes.SyncPodType
	Pod   *v1.Pod // nil for SyncTerminatingRuntimePod
	Grace *int64  // SyncTerminatingPod's
	// StatusFn is SyncTerminatingPod's podStatusFn (a kill's status
	// function), for the status manager (status.go).
	StatusFn func(*v1.PodStatus)
	Ctx      context.Context

	release      chan Outcome
	arrivalOrder int

	// The driver's bookkeeping of the call.
	Begun       bool // its SyncBegin was recorded
	CancelNoted bool // its CancelFired was recorded
	S3Reported  bool // S3's cancellation clause reported for it
	// BeganStep is the driver step its SyncBegin was recorded at; Ghost:
	// it began in a worker goroutine of an earlier incarnation of the UID,
	// which read a buffered signal late (package explain, GE).
	BeganStep int
	Ghost     bool
	// RecordEnded: the UID's record ended (purged, finished, forgotten)
	// while the call was in flight, so what the worker does when it
	// returns lands on the UID's next record, if any (package explain, GE).
	RecordEnded bool
}

// Outcome is how the driver makes a parked call return.
type Outcome uint8

// Outcomes a released call returns.
const (
	ReturnOK Outcome = iota
	ReturnError
	ReturnCanceled
	ReturnTerminal // SyncPod only: isTerminal=true, nil error
)

var outcomeNames = [...]string{"ok", "error", "canceled", "terminal"}

func (o Outcome) String() string { return outcomeNames[o] }

// ParseOutcome reads an outcome's script word.
func ParseOutcome(s string) (Outcome, error) {
	return realdriver.ParseOutcome[Outcome](outcomeNames[:], s)
}

// errInjected is the error a released call returns for ReturnError.
var errInjected = fmt.Errorf("realkubelet: injected sync error")

// Gates is the syncer the real pod workers call (it implements the
// podSyncer method set) and the work queue's memory. Its lock only guards
// the bookkeeping: between driver steps exactly one goroutine touches it.
type Gates struct {
	mu       sync.Mutex
	parked   []*Call // in arrival order; one per UID unless S1 is broken
	arrivals int
	// Overlaps are second calls for a UID while one was parked (S1).
	Overlaps []Overlap
	queued   map[types.UID]bool
	// wakes are worker wake-ups held at their gates (wakes.go).
	pipes      []*pipe
	forwarders map[types.UID]int
	// watched are the workers' update channels in plain mode (stuck.go).
	watched []watchedWorker
	// NeverReturn, a test plant, makes the calls it selects block for
	// ever, unseen by the driver: a syncer that hangs (stuck_test.go).
	NeverReturn func(*Call) bool
	// inert: the gates' process is dead (MakeInert): calls return an
	// error at once, unparked and unrecorded, and the queue forgets.
	inert bool
}

// Overlap is an S1 violation: a second callback of UID (Second) while
// one was parked (First).
type Overlap struct {
	UID           types.UID
	Msg           string
	First, Second *Call
}

// New returns gates with nothing parked.
func New() *Gates {
	return &Gates{queued: map[types.UID]bool{}, forwarders: map[types.UID]int{}}
}

// Park blocks c at its gate until the driver releases it.
func (g *Gates) Park(c *Call) Outcome {
	c.release = make(chan Outcome)
	if g.NeverReturn != nil && g.NeverReturn(c) {
		return <-c.release
	}
	g.mu.Lock()
	if g.inert {
		g.mu.Unlock()
		return ReturnError
	}
	for _, old := range g.parked {
		if old.UID == c.UID {
			g.Overlaps = append(g.Overlaps, Overlap{c.UID, fmt.Sprintf("%s began while %s of pod %s was in flight", c.Fn, old.Fn, c.UID), old, c})
		}
	}
	g.arrivals++
	c.arrivalOrder = g.arrivals
	g.parked = append(g.parked, c)
	g.mu.Unlock()
	return <-c.release
}

// Parked lists the calls at their gates by UID (then arrival): a
// deterministic order whatever order the worker goroutines arrived in.
func (g *Gates) Parked() []*Call {
	g.mu.Lock()
	defer g.mu.Unlock()
	return realdriver.Parked(g.parked, func(c *Call) types.UID { return c.UID })
}

// Release lets uid's oldest parked call return with o; false if none.
func (g *Gates) Release(uid types.UID, o Outcome) (*Call, bool) {
	return g.releaseFirst(func(c *Call) bool { return c.UID == uid }, o)
}

// ReleaseCall lets the parked call c return with o; false if c is not
// parked.
func (g *Gates) ReleaseCall(c *Call, o Outcome) bool {
	_, ok := g.releaseFirst(func(p *Call) bool { return p == c }, o)
	return ok
}

func (g *Gates) releaseFirst(match func(*Call) bool, o Outcome) (*Call, bool) {
	g.mu.Lock()
	c, ok := realdriver.Unpark(&g.parked, match)
	g.mu.Unlock()
	if !ok {
		return nil, false
	}
	c.release <- o
	return c, true
}

// Enqueue is the work queue's: uid wants a later UpdatePod(sync).
func (g *Gates) Enqueue(uid types.UID) {
	g.mu.Lock()
	if !g.inert {
		g.queued[uid] = true
	}
	g.mu.Unlock()
}

// TakeQueued empties the work queue, sorted by UID.
func (g *Gates) TakeQueued() []types.UID {
	g.mu.Lock()
	defer g.mu.Unlock()
	out := make([]types.UID, 0, len(g.queued))
	for uid := range g.queued {
		out = append(out, uid)
	}
	clear(g.queued)
	slices.Sort(out)
	return out
}

// QueueLen is how many UIDs the work queue holds.
func (g *Gates) QueueLen() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.queued)
}

// SyncPod implements podSyncer.
func (g *Gates) SyncPod(ctx context.Context, t kubetypes.SyncPodType, pod, _ *v1.Pod, _ *kubecontainer.PodStatus) (bool, func(), error) {
	o := g.Park(&Call{UID: pod.UID, Fn: ops.SyncPod, Type: t, Pod: pod, Ctx: ctx})
	if o == ReturnTerminal {
		return true, nil, nil
	}
	return false, nil, o.err()
}

// SyncTerminatingPod implements podSyncer.
func (g *Gates) SyncTerminatingPod(ctx context.Context, pod *v1.Pod, _ *kubecontainer.PodStatus, grace *int64, fn func(*v1.PodStatus)) error {
	return g.Park(&Call{UID: pod.UID, Fn: ops.SyncTerminatingPod, Pod: pod, Grace: grace, StatusFn: fn, Ctx: ctx}).err()
}

// SyncTerminatingRuntimePod implements podSyncer.
func (g *Gates) SyncTerminatingRuntimePod(ctx context.Context, rp *kubecontainer.Pod) error {
	return g.Park(&Call{UID: rp.ID, Fn: ops.SyncTerminatingRuntimePod, Ctx: ctx}).err()
}

// SyncTerminatedPod implements podSyncer.
func (g *Gates) SyncTerminatedPod(ctx context.Context, pod *v1.Pod, _ *kubecontainer.PodStatus) error {
	return g.Park(&Call{UID: pod.UID, Fn: ops.SyncTerminatedPod, Pod: pod, Ctx: ctx}).err()
}

func (o Outcome) err() error {
	switch o {
	case ReturnError:
		return errInjected
	case ReturnCanceled:
		return context.Canceled
	}
	return nil
}

// MakeInert stops the gates from parking: every later callback returns an
// error at once, and the work queue forgets what it is given. Nothing an
// inert gate sees is recorded (the driver records only its current gates).
func (g *Gates) MakeInert() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.inert = true
	clear(g.queued)
}
