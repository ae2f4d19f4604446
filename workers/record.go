package workers

import (
	"cmp"
	"slices"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
)

// ConfigSourceAnnotationKey is the annotation that names the config source
// of a pod (the kubelet's kubetypes.ConfigSourceAnnotationKey).
const ConfigSourceAnnotationKey = "kubernetes.io/config.source"

// ApiserverSource is the config source value of pods from the API server;
// every other value marks a static pod.
const ApiserverSource = "api"

// podSyncStatus is the per-UID record of SPEC §1.1. Milestones are kept as
// booleans next to their times, so that a clock whose epoch is the zero
// time.Time cannot make a milestone look unset.
type podSyncStatus struct {
	uid types.UID
	// fullname is name_namespace, the static-pod exclusion key.
	fullname string
	// updates wakes the worker goroutine; nil once closed (finished, purged
	// or Shutdown). Every unfinished record has one.
	updates Signal
	// run is the worker goroutine's body, podWorkerLoop(this record,
	// runUpdates), made once with the record's memory (newRecordLocked) and
	// kept through Renew; runUpdates is the signal of the record's first
	// worker, set when it is started (ensureWorkerLocked). nil run: a
	// record made elsewhere, whose worker gets a body of its own.
	run        func()
	runUpdates Signal
	// cancel is the cancellation Event of the current sync context;
	// cancelCount numbers them for stable names (cancel/<uid>#<n>). Only
	// the workers fire it, so cancelFired mirrors Event.Fired without
	// calling it: in the simulated runtime Fired is a scheduling point, and
	// the invariant checker and snapshots must not add any.
	cancel      Event
	cancelCount int
	cancelFired bool

	syncedAt      time.Time
	startedAt     time.Time
	terminatingAt time.Time
	terminatedAt  time.Time

	// started: the worker allowed the pod to start (allowPodStart passed).
	started bool
	// terminationRequested: terminatingAt is set (state TR and beyond).
	terminationRequested bool
	// startedTerminating: the worker acknowledged the request and will never
	// call SyncPod again.
	startedTerminating bool
	// terminated: a SyncTerminatingPod returned nil (or unstarted cleanup).
	terminated bool
	// finished: SyncTerminatedPod returned nil (or unstarted cleanup).
	finished bool

	deleted          bool
	evicted          bool
	restartRequested bool
	observedRuntime  bool
	// working: an update is pending or being processed.
	working bool
	// inFlight/inFlightWork: the worker is between startPodSync and the
	// completion of one sync call (checked by the invariants).
	inFlight     bool
	inFlightWork WorkType

	// gracePeriod is the effective grace in seconds, ≥1 once termination is
	// requested; it only decreases (SPEC §1.7).
	gracePeriod int64

	pendingUpdate *UpdatePodOptions
	activeUpdate  *UpdatePodOptions
	// pending and active are where pendingUpdate and activeUpdate point
	// once set (setPending, mergeLastUpdate): the options in the record's
	// allocation, not one of their own per update. Neither pointer leaves
	// the record: whoever keeps an update copies it (startPodSyncLocked,
	// requeueLastPodUpdateLocked).
	pending, active UpdatePodOptions

	// notifyPostTerminating are the CompletedCh Events of kills, fired once
	// the pod is terminated; statusPostTerminating are their status
	// functions, the last of which is passed to SyncTerminatingPod.
	notifyPostTerminating []Event
	statusPostTerminating []PodStatusFunc

	// staticOf is the pod whose isStaticPod answer static holds
	// (activeStatic): the invariants read it at every release.
	staticOf *v1.Pod
	static   bool
}

// activeStatic is isStaticPod(s.activeUpdate.Pod), looked up again only
// when the active pod is another object than at the last call (a pod's
// annotations are not changed once it is handed to the pod workers).
func (s *podSyncStatus) activeStatic() bool {
	if pod := s.activeUpdate.Pod; pod != s.staticOf {
		s.staticOf, s.static = pod, isStaticPod(pod)
	}
	return s.static
}

// workType is the kubelet's podSyncStatus.WorkType: the phase the next sync
// runs in, computed from the record at consumption time so that a kill is
// sticky (SPEC §1.6).
func (s *podSyncStatus) workType() WorkType {
	switch {
	case s.terminated:
		return TerminatedPodWork
	case s.terminationRequested:
		return TerminatingPodWork
	}
	return SyncPodWork
}

// stateName is the state of SPEC §1.2 (P, S, TR, T, D or F).
func (s *podSyncStatus) stateName() string {
	switch {
	case s.finished:
		return "F"
	case s.terminated:
		return "D"
	case s.startedTerminating:
		return "T"
	case s.terminationRequested:
		return "TR"
	case s.started:
		return "S"
	}
	return "P"
}

// knownPod is the newest real pod spec the record holds: the pending one,
// else the last consumed one; nil if only a runtime pod was seen.
func (s *podSyncStatus) knownPod() *v1.Pod {
	if s.pendingUpdate != nil && s.pendingUpdate.Pod != nil {
		return s.pendingUpdate.Pod
	}
	if s.activeUpdate != nil {
		return s.activeUpdate.Pod
	}
	return nil
}

// mergeLastUpdate folds a consumed update into activeUpdate (SPEC §1.6):
// UpdateType and StartTime are not copied (replays are syncs); a runtime
// pod never hides a real pod spec; a missing mirror pod keeps the previous
// one; kill options keep only Evict and the grace override, because the
// completion Events and status functions live in the record's lists.
func (s *podSyncStatus) mergeLastUpdate(other UpdatePodOptions) {
	opts := s.activeUpdate
	if opts == nil {
		s.active = UpdatePodOptions{}
		opts = &s.active
		s.activeUpdate = opts
	}
	if opts.Pod == nil || other.RunningPod == nil {
		opts.Pod = other.Pod
	}
	opts.RunningPod = other.RunningPod
	if other.MirrorPod != nil {
		opts.MirrorPod = other.MirrorPod
	}
	if other.KillPodOptions != nil {
		opts.KillPodOptions = &KillPodOptions{
			Evict:                                    other.KillPodOptions.Evict,
			PodTerminationGracePeriodSecondsOverride: other.KillPodOptions.PodTerminationGracePeriodSecondsOverride,
		}
	}
}

// setPending makes o the pending update, kept in the record (pending).
func (s *podSyncStatus) setPending(o UpdatePodOptions) {
	s.pending = o
	s.pendingUpdate = &s.pending
}

// isStaticPod reports a pod from a non-API config source (the kubelet's
// kubetypes.IsStaticPod: the annotation must be present and not "api").
func isStaticPod(pod *v1.Pod) bool {
	if pod == nil {
		return false
	}
	source, ok := pod.Annotations[ConfigSourceAnnotationKey]
	return ok && source != ApiserverSource
}

// podFullName is the kubelet's kubecontainer.GetPodFullName: name_namespace.
func podFullName(pod *v1.Pod) string {
	return pod.Name + "_" + pod.Namespace
}

// isTerminalPhase reports an API phase of Succeeded or Failed.
func isTerminalPhase(pod *v1.Pod) bool {
	return pod.Status.Phase == v1.PodSucceeded || pod.Status.Phase == v1.PodFailed
}

// runtimePodToAPIPod is RunningPod.ToAPIPod: a synthetic pod used only for
// the transition checks of a runtime-only update (SPEC §1.9).
func runtimePodToAPIPod(rp *RunningPod) *v1.Pod {
	pod := &v1.Pod{}
	pod.UID = rp.ID
	pod.Name = rp.Name
	pod.Namespace = rp.Namespace
	return pod
}

// sortedKeys returns the keys of m in ascending order, so that no map
// iteration order reaches behaviour or output. The list is made at its
// size (slices.Sorted(maps.Keys(m)) grows it from nothing).
func sortedKeys[K cmp.Ordered, V any](m map[K]V) []K {
	keys := make([]K, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// fireOnce fires ev unless it already fired: a completion Event may be
// shared by callers, and firing twice panics.
func fireOnce(ev Event) {
	if ev != nil && !ev.Fired() {
		ev.Fire()
	}
}
