// Package fakeruntime is the simulated kubelet's fake container runtime
// (package world's): the pod workers' Syncer and PodCache, which runs no
// containers, only takes (virtual) time on the seeded scheduler and fails
// as the plan's Faults say — flat fault rates, drawn error shapes
// (errshape.go) and situation fault points (faultpoints.go). It knows no
// World: the world is told of every call through a CallObserver, arms the
// fault points with what they need (ArmFaultPoints) and takes each failed
// call's error shape at the call's end (TakeErrShape).
package fakeruntime

import (
	"errors"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/model/ops"
	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/sim"
	"github.com/podsim/podsim/workers"
	"github.com/podsim/podsim/world/slab"
)

// CallObserver is told of every callback as it begins and ends: the hook
// recorders and oracles attach to.
type CallObserver interface {
	CallBegin(fn string, uid types.UID, c CallInfo)
	CallEnd(fn string, uid types.UID, c CallInfo, err error, isTerminal bool)
}

// CallInfo is what one callback was asked to do.
type CallInfo struct {
	Fn         ops.SyncFn         // the callback, as the fn its observer is given names it
	UpdateType workers.UpdateType // SyncPod only
	Pod        *v1.Pod            // nil for SyncTerminatingRuntimePod
	Grace      int64              // SyncTerminatingPod only
	Cancel     workers.Event
}

// MustName stops the run when c.Fn is not the callback fn names: an
// observer told of a call whose Fn was left unset (NoSync) would record no
// call at all, and the oracles would judge a history with a hole in it.
func (c CallInfo) MustName(fn string) {
	if c.Fn.String() != fn {
		panic("fakeruntime: " + fn + " reported with CallInfo.Fn " + c.Fn.String())
	}
}

// Runtime is the fake container runtime behind the pod workers' Syncer and
// PodCache: it runs no containers, only takes (virtual) time and fails as
// its Faults say, and it counts running containers per pod so the cache
// and the oracles can see what would be running.
type Runtime struct {
	S        *sim.Scheduler
	Faults   plan.Faults
	Draw     sim.Source // the fault stream
	Observer CallObserver

	running podCounts
	first   [4]podCount  // running's first array
	points  *faultPoints // nil: no fault points (ArmFaultPoints)
	// errShapes holds, per pod, the drawn shape of the error its call is
	// returning (errshape.go), until the call's end records it.
	errShapes map[types.UID]shapedError
	// chunks is where Get's statuses come from, each a new one, never
	// written again: shared by a runtime and those it hands over to (it
	// never hands out the same memory twice), its arrays kept for a lane's
	// next run (Renew).
	chunks *slab.Bump[workers.PodStatus]
}

// NewRuntime returns a fake runtime over s drawing faults from draw.
func NewRuntime(s *sim.Scheduler, draw sim.Source, f plan.Faults) *Runtime {
	return new(Runtime).Renew(s, draw, f)
}

// Renew is NewRuntime in r's memory, for a lane's next run (world.Renew):
// the statuses' arrays kept, zeroed. Only for a caller that knows nothing
// holds r, a runtime r handed over to, or anything they made any more.
func (r *Runtime) Renew(s *sim.Scheduler, draw sim.Source, f plan.Faults) *Runtime {
	chunks := r.chunks
	if chunks == nil {
		chunks = new(slab.Bump[workers.PodStatus])
	}
	chunks.Reset()
	*r = Runtime{S: s, Faults: f, Draw: draw, chunks: chunks}
	r.running = r.first[:0] // most runs run a few pods: no allocation
	return r
}

var (
	_ workers.Syncer   = (*Runtime)(nil)
	_ workers.PodCache = (*Runtime)(nil)
)

// ErrTransient is the injected CRI failure.
var ErrTransient = errors.New("fake runtime: transient CRI error")

// chance draws a fault with probability perMille/1000. The fault sits at
// the top of the draw's range, so choice 0 — what a replayed or shrunk
// choice list answers past its end, and what shrinking lowers choices
// towards — never injects one (CheckRapid and Shrink rely on it).
func (r *Runtime) chance(perMille int) bool {
	return perMille > 0 && r.Draw.Intn(1000) >= 1000-perMille
}

// call runs one callback: it may take time (honouring cancellation unless
// told not to), and may fail.
func (r *Runtime) call(fn string, uid types.UID, c CallInfo) error {
	if r.points == nil {
		return r.plainCall(uid, c)
	}
	slept, done, err := r.beforePoints(fn, uid, c)
	if !done && !slept {
		err = r.plainCall(uid, c)
	} else if !done && r.chance(r.Faults.ErrorRate) {
		err = r.failure(uid)
	}
	err = r.afterPoints(fn, uid, c, err)
	r.noteResult(uid, err)
	return err
}

// plainCall is a call with the plan's flat fault rates only.
func (r *Runtime) plainCall(uid types.UID, c CallInfo) error {
	if r.chance(r.Faults.SlowRate) && r.Faults.MaxDelay > 0 {
		d := time.Duration(1+r.Draw.Intn(int(r.Faults.MaxDelay/time.Millisecond))) * time.Millisecond
		if r.chance(r.Faults.IgnoreCancel) {
			r.S.Sleep(d)
		} else if c.Cancel.WaitFor(d) {
			return workers.ErrCanceled
		}
	} else {
		r.S.Yield()
	}
	if r.chance(r.Faults.ErrorRate) {
		return r.failure(uid)
	}
	return nil
}

func (r *Runtime) observe(fn string, uid types.UID, c CallInfo, body func() (error, bool)) (bool, error) {
	if r.Observer != nil {
		r.Observer.CallBegin(fn, uid, c)
	}
	err, terminal := body()
	if r.Observer != nil {
		r.Observer.CallEnd(fn, uid, c, err, terminal)
	}
	return terminal, err
}

// SyncPod starts the pod's containers (one per pod, for accounting).
func (r *Runtime) SyncPod(cancel workers.Event, ut workers.UpdateType, pod, _ *v1.Pod, _ *workers.PodStatus) (bool, error) {
	c := CallInfo{Fn: ops.SyncPod, UpdateType: ut, Pod: pod, Cancel: cancel}
	return r.observe("SyncPod", pod.UID, c, func() (error, bool) {
		if r.Faults.UncancellablePull > 0 && r.running.get(pod.UID) == 0 {
			r.S.Sleep(r.Faults.UncancellablePull) // B16: the pull does not see the kill
		}
		if err := r.call("SyncPod", pod.UID, c); err != nil {
			return err, false
		}
		if r.chance(r.Faults.TerminalRate) {
			r.running.set(pod.UID, 0)
			return nil, true
		}
		r.running.set(pod.UID, 1)
		return nil, false
	})
}

// SyncTerminatingPod stops the pod's containers.
func (r *Runtime) SyncTerminatingPod(cancel workers.Event, pod *v1.Pod, _ *workers.PodStatus, grace int64, _ workers.PodStatusFunc) error {
	return r.stopContainers("SyncTerminatingPod", pod.UID, CallInfo{Fn: ops.SyncTerminatingPod, Pod: pod, Grace: grace, Cancel: cancel})
}

// SyncTerminatingRuntimePod kills a pod known only from the runtime.
func (r *Runtime) SyncTerminatingRuntimePod(cancel workers.Event, rp *workers.RunningPod) error {
	return r.stopContainers("SyncTerminatingRuntimePod", rp.ID, CallInfo{Fn: ops.SyncTerminatingRuntimePod, Grace: 1, Cancel: cancel})
}

// stopContainers is a terminating call fn for uid: once the call succeeds,
// none of the pod's containers runs.
func (r *Runtime) stopContainers(fn string, uid types.UID, c CallInfo) error {
	_, err := r.observe(fn, uid, c, func() (error, bool) {
		if err := r.call(fn, uid, c); err != nil {
			return err, false
		}
		r.running.set(uid, 0)
		return nil, false
	})
	return err
}

// SyncTerminatedPod releases what the pod holds.
func (r *Runtime) SyncTerminatedPod(cancel workers.Event, pod *v1.Pod, _ *workers.PodStatus) error {
	c := CallInfo{Fn: ops.SyncTerminatedPod, Pod: pod, Cancel: cancel}
	_, err := r.observe("SyncTerminatedPod", pod.UID, c, func() (error, bool) {
		return r.call("SyncTerminatedPod", pod.UID, c), false
	})
	return err
}

// Handover returns the runtime of the next kubelet epoch (a kubelet
// restart: the containers survive the process), told of its calls by
// observer and sharing r's state, fault points and error shapes; r is
// detached (a call still in flight changes nothing and is told to nobody).
func (r *Runtime) Handover(observer CallObserver) *Runtime {
	next := *r
	next.Observer = observer
	r.Observer, r.running = nil, nil
	return &next
}

// Running reports the containers the runtime runs for uid.
func (r *Runtime) Running(uid types.UID) int { return r.running.get(uid) }

// SetRunning seeds the runtime state (kubelet restart: containers survive).
func (r *Runtime) SetRunning(uid types.UID, n int) { r.running.set(uid, n) }

// Get implements workers.PodCache from the runtime state.
func (r *Runtime) Get(uid types.UID) (*workers.PodStatus, error) {
	st := r.chunks.New()
	*st = workers.PodStatus{ID: uid, RunningContainers: r.running.get(uid), Timestamp: r.S.Now()}
	return st, nil
}

// RunningUIDs lists the pods with running containers, sorted, in out's
// array (a buffer the caller reuses; nil for a new one).
func (r *Runtime) RunningUIDs(out []types.UID) []types.UID {
	out = out[:0]
	for _, c := range r.running { // by UID
		if c.n > 0 {
			out = append(out, c.uid)
		}
	}
	return out
}

// GetNewerThan implements workers.PodCache. The kubelet's blocks until
// PLEG's next relist; here it is a scheduling point, so others may run
// between the worker taking its update and the callback starting — the
// window in which a kill can land after the take (B16, S3).
func (r *Runtime) GetNewerThan(uid types.UID, _ time.Time) (*workers.PodStatus, error) {
	r.S.Yield()
	return r.Get(uid)
}
