package workers

import (
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
)

// Runtime is the only way the pod workers reach concurrency, time and chance.
// Two implementations exist: the real one in runtime_real.go (goroutines,
// sync.Mutex, channels, a k8s.io/utils/clock clock) and the simulated one
// (world/simrt over the sim package), which runs one goroutine at a time
// in an order chosen by a seed. Names given to goroutines and primitives are
// part of the simulated trace, so they must be stable ("worker/<uid>",
// "podLock", "cancel/<uid>#2") and never contain pointers or counters that
// depend on scheduling.
type Runtime interface {
	// Go starts f as a new goroutine called name.
	Go(name string, f func())
	// NewMutex returns a mutex; only Lock and Unlock are used.
	NewMutex(name string) sync.Locker
	// NewSignal returns a 1-slot wake-up (the kubelet's chan struct{} of
	// capacity 1).
	NewSignal(name string) Signal
	// NewEvent returns a fire-once event (a channel that is closed once).
	NewEvent(name string) Event
	// Now is the current time of the runtime's clock.
	Now() time.Time
	// Intn returns a number in [0, n); used for jitter only.
	Intn(n int) int
}

// Signal is a 1-slot wake-up: Notify never blocks and at most one wake-up is
// pending at a time.
type Signal interface {
	// Notify makes one wake-up pending; a no-op if one already is. Notify
	// after Close panics, as a send on a closed channel does.
	Notify()
	// Wait blocks until a wake-up is pending and consumes it (true), or until
	// the signal is closed with none pending (false).
	Wait() bool
	// TryWait consumes a pending wake-up without blocking; it reports whether
	// there was one.
	TryWait() bool
	// Close wakes every waiter; later Waits return false once drained.
	Close()
}

// Event fires once and stays fired: it stands for cancellation of a sync
// and for the completion of a kill (the kubelet's CompletedCh).
type Event interface {
	// Fire fires the event and wakes every waiter. Firing twice panics, as
	// closing a closed channel does.
	Fire()
	// Fired reports whether Fire has been called.
	Fired() bool
	// Wait blocks until the event fires.
	Wait()
	// WaitFor blocks until the event fires (true) or d has passed on the
	// runtime's clock (false).
	WaitFor(d time.Duration) bool
}

// PodStatus is the runtime's view of a pod, as read from the PodCache: the
// part of the kubelet's kubecontainer.PodStatus the pod workers consult.
type PodStatus struct {
	ID types.UID
	// RunningContainers counts containers the runtime reports as running.
	RunningContainers int
	// ReadySandbox is true when the runtime reports a ready pod sandbox.
	ReadySandbox bool
	// Timestamp is when the runtime observed this status.
	Timestamp time.Time
}

// IsIdle reports that nothing of the pod runs: no running container and no
// ready sandbox.
func (s *PodStatus) IsIdle() bool {
	return s == nil || (s.RunningContainers == 0 && !s.ReadySandbox)
}

// RunningPod is a pod known only from the container runtime (the kubelet's
// kubecontainer.Pod): it has no config pod, only an identity.
type RunningPod struct {
	ID        types.UID
	Name      string
	Namespace string
}

// PodCache is the runtime status cache fed by PLEG.
type PodCache interface {
	// Get returns the cached status; a miss returns an empty status and nil.
	Get(uid types.UID) (*PodStatus, error)
	// GetNewerThan blocks until the cache holds a status of uid newer than
	// minTime, then returns it.
	GetNewerThan(uid types.UID, minTime time.Time) (*PodStatus, error)
}

// PodStatusFunc edits the status a terminating pod reports (eviction, node
// shutdown and preemption set Failed through it).
type PodStatusFunc func(status *v1.PodStatus)

// Syncer holds the four lifecycle callbacks the worker drives. Each receives
// the cancellation Event of the current sync: it fires when termination is
// first requested or the grace period is shortened. A callback that honours
// it returns ErrCanceled.
type Syncer interface {
	// SyncPod brings the pod towards its desired state. isTerminal reports
	// natural completion (the pod reached Succeeded or Failed).
	SyncPod(cancel Event, updateType UpdateType, pod, mirrorPod *v1.Pod, status *PodStatus) (isTerminal bool, err error)
	// SyncTerminatingPod stops every container within gracePeriod seconds
	// (always >= 1); nil means nothing runs and nothing will.
	SyncTerminatingPod(cancel Event, pod *v1.Pod, status *PodStatus, gracePeriod int64, statusFn PodStatusFunc) error
	// SyncTerminatingRuntimePod kills a pod known only from the runtime,
	// with a grace period of 1 second.
	SyncTerminatingRuntimePod(cancel Event, runningPod *RunningPod) error
	// SyncTerminatedPod releases what the terminated pod still holds
	// (volumes, cgroups, status); nil means the pod is finished.
	SyncTerminatedPod(cancel Event, pod *v1.Pod, status *PodStatus) error
}
