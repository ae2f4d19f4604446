package workers

import (
	"errors"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
)

// UpdateType says why UpdatePod was called; the values and their order are
// the kubelet's SyncPodType (pkg/kubelet/types), so the zero value is a sync.
type UpdateType int

const (
	// SyncPodSync is a periodic, PLEG or probe re-sync.
	SyncPodSync UpdateType = iota
	// SyncPodUpdate is a config change, including a graceful API delete.
	SyncPodUpdate
	// SyncPodCreate is a pod new from a source or restarted by housekeeping.
	SyncPodCreate
	// SyncPodKill asks that the pod have no running containers.
	SyncPodKill
)

func (t UpdateType) String() string {
	switch t {
	case SyncPodSync:
		return "sync"
	case SyncPodUpdate:
		return "update"
	case SyncPodCreate:
		return "create"
	case SyncPodKill:
		return "kill"
	}
	return "unknown"
}

// WorkType is the phase a pod's worker is in (the kubelet's PodWorkType).
type WorkType int

const (
	// SyncPodWork: the pod may start and run containers.
	SyncPodWork WorkType = iota
	// TerminatingPodWork: containers are being stopped; none will start.
	TerminatingPodWork
	// TerminatedPodWork: nothing runs; resources are being released.
	TerminatedPodWork
)

func (w WorkType) String() string {
	switch w {
	case SyncPodWork:
		return "sync"
	case TerminatingPodWork:
		return "terminating"
	case TerminatedPodWork:
		return "terminated"
	}
	return "unknown"
}

// KillPodOptions carries what a kill asks for.
type KillPodOptions struct {
	// CompletedCh fires once the pod is terminated, or at once if the kill
	// cannot apply (pod not terminating, already terminated or finished).
	CompletedCh Event
	// Evict marks the pod evicted, so its content is removed.
	Evict bool
	// PodStatusFunc edits the final status; the last one given wins.
	PodStatusFunc PodStatusFunc
	// PodTerminationGracePeriodSecondsOverride shortens the grace period;
	// an explicit 0 means "as short as possible" (1 second).
	PodTerminationGracePeriodSecondsOverride *int64
}

// UpdatePodOptions is one call of UpdatePod.
type UpdatePodOptions struct {
	UpdateType UpdateType
	// StartTime is when the update was first seen, for latency metrics.
	StartTime time.Time
	Pod       *v1.Pod
	MirrorPod *v1.Pod
	// RunningPod is set, with Pod nil, for pods known only to the runtime.
	RunningPod     *RunningPod
	KillPodOptions *KillPodOptions
}

// PodWorkerSync is what SyncKnownPods reports for each kept record.
type PodWorkerSync struct {
	State WorkType
	// Orphan is true when the UID was not among the desired pods.
	Orphan bool
	// HasConfig is true when a config pod (not only a runtime pod) is known.
	HasConfig bool
	// Static is true for pods from a non-API source.
	Static bool
}

// KnownPods is SyncKnownPods' result: one entry per kept record, in
// ascending UID order.
type KnownPods []KnownPod

// KnownPod is a kept record's UID and report.
type KnownPod struct {
	UID types.UID
	PodWorkerSync
}

// Get is the report of uid, if its record was kept.
func (k KnownPods) Get(uid types.UID) (PodWorkerSync, bool) {
	for i := range k {
		if k[i].UID == uid {
			return k[i].PodWorkerSync, true
		}
	}
	return PodWorkerSync{}, false
}

// ErrCanceled is what a sync callback returns when it honoured its
// cancellation Event (the kubelet's context.Canceled).
var ErrCanceled = errors.New("workers: sync canceled")
