package history

import (
	"strconv"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/podsim/podsim/model/ops"
	"github.com/podsim/podsim/plan"
)

// EventKind says what happened around the pod workers.
type EventKind uint8

const (
	// ClientCall: a goroutine called into the pod workers' API (Input), or
	// started killPodNow's wait (ops.KillPodNowDone). ID pairs it with
	// its ClientReturn.
	ClientCall EventKind = iota
	// ClientReturn: that call returned (Output; nil for UpdatePod).
	ClientReturn
	// LockAcquired and LockReleasing bracket every critical section of the
	// pod lock, in the goroutine that holds it (worker/<uid> for the
	// worker's hidden steps).
	LockAcquired
	LockReleasing
	// CallbackBegin and CallbackEnd bracket a Syncer callback in the worker
	// goroutine (Input: ops.SyncBegin, ops.SyncEnd).
	CallbackBegin
	CallbackEnd
	// Fired: a cancellation or a kill completion fired (Input:
	// ops.CancelFired, ops.CompletionFired), at the Fire.
	Fired
	// Settled: the plan and the settle phase are over; what is not done now
	// never will be (liveness oracles judge here). Nothing follows.
	Settled
	// Restarted: the kubelet restarted. Everything after it is the history
	// of new pod workers; nothing of the old ones follows.
	Restarted
	// Noted: a kubelet-level actor did something the kubelet-level checks
	// judge (Note says what). A note is not an operation of the model and
	// not a step of the stream: it carries the Seq of the event before it,
	// so notes never renumber a history, and the recorder ignores them.
	Noted
	// ReadFailed: a pod worker's runtime status read before a sync call
	// failed (Input: ops.StatusReadFailed), in the worker goroutine; the
	// pass ends with no call. The target that implements the cache records
	// it: it decides the model's outcome of the pass (no target's cache
	// fails today).
	ReadFailed
)

// NumEventKinds is the number of event kinds: every kind is below it, so a
// table by kind is an array of this length.
const NumEventKinds = ReadFailed + 1

var eventKindNames = [NumEventKinds]string{"call", "return", "lock", "unlock", "begin", "end", "fired", "settled", "restarted", "noted", "readfailed"}

func (k EventKind) String() string { return eventKindNames[k] }

// Event is one entry of the run's totally ordered stream of what happened
// around the pod workers, in the vocabulary of package model.
type Event struct {
	Seq       int64         // position in the stream, from 1
	Step      int64         // the scheduler's step count
	At        time.Duration // virtual time
	Goroutine string
	Kind      EventKind
	ID        int // pairs ClientCall with ClientReturn
	Input     ops.Input
	Output    ops.Output
	Note      Note // Noted only
	// Probe is what every public query method returned at the end of the
	// critical section (LockReleasing only; nil where the target cannot
	// call them there).
	Probe *Probe
}

// The config source annotation of a pod object, and the value it has for
// pods from the API server (every other source makes a static pod).
const (
	ConfigSourceAnnotationKey = "kubernetes.io/config.source"
	ApiserverSource           = "api"
)

// ModelPod is the part of pod the model reads; Version is the "version"
// label the world stamps on every pod object it builds. A pod is static
// unless its config source annotation says "api" (kubetypes.IsStaticPod
// for every pod the world builds, which always carry the annotation);
// realkubelet builds its pods the same way and reads them through this too.
func ModelPod(pod *v1.Pod) ops.Pod {
	p := ops.Pod{UID: string(pod.UID), Name: pod.Name, Namespace: pod.Namespace, Version: PodVersion(pod),
		Static:            pod.Annotations[ConfigSourceAnnotationKey] != ApiserverSource,
		DeletionTimestamp: pod.DeletionTimestamp != nil, SpecGrace: 30}
	if g := pod.DeletionGracePeriodSeconds; g != nil {
		p.DeletionGrace, p.HasDeletionGrace = *g, true
	}
	if g := pod.Spec.TerminationGracePeriodSeconds; g != nil {
		p.SpecGrace = *g
	}
	p.Phase = modelPhase(pod.Status.Phase)
	return p
}

// modelPhase is the model's view of a pod's phase.
func modelPhase(phase v1.PodPhase) ops.Phase {
	switch phase {
	case v1.PodPending:
		return ops.PhasePending
	case v1.PodSucceeded:
		return ops.PhaseSucceeded
	case v1.PodFailed:
		return ops.PhaseFailed
	}
	return ops.PhaseRunning
}

// PodVersion is ModelPod(pod).Version alone: its "version" label.
func PodVersion(pod *v1.Pod) int {
	version, _ := strconv.Atoi(pod.Labels["version"])
	return version
}

// UIDOfEvent reads the UID out of an event name "kind/<uid>" or
// "kind/<uid>#n".
func UIDOfEvent(name string) string {
	_, rest, _ := strings.Cut(name, "/")
	uid, _, _ := strings.Cut(rest, "#")
	return uid
}

// WorkerOf reads the name of a pod worker goroutine, worker/<uid> or, for
// a UID reused after a purge, worker/<uid>#<n>: the UID and the worker's
// generation (1 for the first).
func WorkerOf(goroutine string) (uid string, gen int, ok bool) {
	const prefix = "worker/"
	if len(goroutine) < len(prefix) || goroutine[:len(prefix)] != prefix {
		return "", 0, false
	}
	uid = goroutine[len(prefix):]
	// A loop, not strings.Cut: a UID is a few bytes, and this runs for
	// every event of several oracles (TestWorkerOf).
	for i := 0; i < len(uid); i++ {
		if uid[i] == '#' {
			if v, err := strconv.Atoi(uid[i+1:]); err == nil && v > 1 {
				return uid[:i], v, true
			}
			return uid[:i], 1, true
		}
	}
	return uid, 1, true
}

// PodObject is the pod object a config source delivers for a plan's pod:
// named by the action (Action.PodName), in namespace default, with the
// "version" label ModelPod reads back (so a callback can be matched with
// the update it consumed), the config source annotation ("file" for a
// static pod, "api" otherwise), the spec grace and phase, and, once
// deleted (deletion non-nil), a deletion timestamp at now with that grace.
// Every kubelet target builds its pods with it, or with PodObjects.
func PodObject(a plan.Action, version int, phase v1.PodPhase, deletion *int64, now time.Time) *v1.Pod {
	return podObject(a, phase, deletion, now, map[string]string{"version": strconv.Itoa(version)},
		map[string]string{ConfigSourceAnnotationKey: sourceOf(a)})
}

// sourceOf is the config source of a's pod.
func sourceOf(a plan.Action) string {
	if a.Static {
		return "file"
	}
	return ApiserverSource
}

func podObject(a plan.Action, phase v1.PodPhase, deletion *int64, now time.Time, labels, annotations map[string]string) *v1.Pod {
	return fillPodObject(&podBox{}, a, phase, deletion, now, labels, annotations)
}

// podBox is a pod object, its spec grace and its deletion time in one
// allocation: each pointer is the pod's own, as three allocations would
// make it.
type podBox struct {
	pod     v1.Pod
	spec    int64
	deleted metav1.Time
	model   ops.Pod // ModelPod(&pod), from what Build was given (PodObjects.Model)
}

// fillPodObject builds the pod object in o, a zero podBox. The fields
// are set one by one in it: a composite literal of a v1.Pod is built on
// the stack and copied over (about a kilobyte zeroed and moved).
// TestPodObjectFields holds the list.
func fillPodObject(o *podBox, a plan.Action, phase v1.PodPhase, deletion *int64, now time.Time, labels, annotations map[string]string) *v1.Pod {
	o.spec = a.SpecGrace
	pod := &o.pod
	pod.UID, pod.Name, pod.Namespace = a.UID, a.PodName(), "default"
	pod.Labels, pod.Annotations = labels, annotations
	pod.Spec.TerminationGracePeriodSeconds = &o.spec
	pod.Status.Phase = phase
	if deletion != nil {
		o.deleted = metav1.Time{Time: now}
		pod.DeletionTimestamp = &o.deleted
		pod.DeletionGracePeriodSeconds = deletion
	}
	return pod
}

// PodObjects builds the pod objects PodObject builds, for a target that
// never changes a pod object once built (the simulated kubelet: its pod
// workers copy a pod before changing a field): the objects it builds
// share their label and annotation maps, one per version and one per
// config source, made once. The maps are the builder's own: a target that
// did write one would spoil that run alone, which replays alike by itself
// or in a sweep, for Reuse keeps for the next run only the maps that still
// hold what Build put in them (a process-wide table would carry such a
// write into every later run of the process). The zero value is ready.
type PodObjects struct {
	labels    []map[string]string // by version
	api, file map[string]string   // the annotations of each config source
	// boxes are the pod objects built since Reuse was first called, for
	// Build to build in again after the next Reuse; used counts those
	// built in since the last. Without Reuse each object is a new
	// allocation (boxes stays empty).
	boxes   []*podBox
	used    int
	reusing bool
	// recent are the last objects built, for Model.
	recent [4]*podBox
	next   int
	// handed and handedAPI mark the maps Build handed out since Reuse, the
	// ones Reuse checks (no other can have been written): bit v of handed
	// the labels of version v (v < 64; Reuse checks the others always),
	// bits 0 and 1 of handedAPI the api and the file annotations.
	handed, handedAPI uint64
}

// Model is ModelPod(pod), read from what Build was given when pod is one
// of the last few objects b built (an object is never changed once built),
// and by ModelPod otherwise: no lookup in the pod's label and annotation
// maps (TestPodObjectsModel).
func (b *PodObjects) Model(pod *v1.Pod) ops.Pod {
	for _, o := range b.recent {
		if o != nil && &o.pod == pod {
			return o.model
		}
	}
	return ModelPod(pod)
}

// Reuse readies b for another run (a lane's next seed, run.Lane): the
// pod objects built so far built again in place, and the label and
// annotation maps kept where they still hold what Build put in them (a
// map a run wrote is dropped: the next run makes its own). Only for a
// caller that knows nothing holds a pod object of an earlier run: the
// next Build overwrites it.
func (b *PodObjects) Reuse() {
	for version, m := range b.labels {
		if (version >= 64 || b.handed&(1<<version) != 0) && (len(m) != 1 || m["version"] != strconv.Itoa(version)) {
			b.labels[version] = nil
		}
	}
	if b.handedAPI&1 != 0 && (len(b.api) != 1 || b.api[ConfigSourceAnnotationKey] != ApiserverSource) {
		b.api = nil
	}
	if b.handedAPI&2 != 0 && (len(b.file) != 1 || b.file[ConfigSourceAnnotationKey] != sourceOf(plan.Action{Static: true})) {
		b.file = nil
	}
	b.used, b.reusing, b.handed, b.handedAPI = 0, true, 0, 0
	b.recent, b.next = [4]*podBox{}, 0
}

// box is a zero podBox: one built in before Reuse, or a new one.
func (b *PodObjects) box() *podBox {
	switch {
	case !b.reusing:
		return &podBox{}
	case b.used < len(b.boxes):
		o := b.boxes[b.used]
		*o = podBox{}
		b.used++
		return o
	}
	o := &podBox{}
	b.boxes, b.used = append(b.boxes, o), b.used+1
	return o
}

// Build is PodObject(a, version, phase, deletion, now), its maps shared.
func (b *PodObjects) Build(a plan.Action, version int, phase v1.PodPhase, deletion *int64, now time.Time) *v1.Pod {
	if version < 0 { // not a version a plan makes: nothing to share
		return PodObject(a, version, phase, deletion, now)
	}
	if b.labels == nil {
		b.labels = make([]map[string]string, 0, 8) // room for a run's versions: no growth from nothing
	}
	for len(b.labels) <= version {
		b.labels = append(b.labels, nil)
	}
	if b.labels[version] == nil {
		b.labels[version] = map[string]string{"version": strconv.Itoa(version)}
	}
	annotations, source := &b.api, uint64(1)
	if a.Static {
		annotations, source = &b.file, 2
	}
	b.handed, b.handedAPI = b.handed|1<<version, b.handedAPI|source // 1<<version is 0 from 64 on
	if *annotations == nil {
		*annotations = map[string]string{ConfigSourceAnnotationKey: sourceOf(a)}
	}
	o := b.box()
	b.recent[b.next%len(b.recent)], b.next = o, b.next+1
	o.model = ops.Pod{UID: string(a.UID), Name: a.PodName(), Namespace: "default", Static: a.Static, Version: version,
		DeletionTimestamp: deletion != nil, SpecGrace: a.SpecGrace, Phase: modelPhase(phase)}
	if deletion != nil {
		o.model.DeletionGrace, o.model.HasDeletionGrace = *deletion, true
	}
	return fillPodObject(o, a, phase, deletion, now, b.labels[version], *annotations)
}
