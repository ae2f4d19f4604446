// Package podworkers reaches the real kubelet pod workers of the pinned
// k8s.io/kubernetes (pkg/kubelet/pod_workers.go), unmodified: their
// unexported constructor newPodWorkers and killPodNow, each pulled by
// a linkname directive whose signature TestLinknameSignature guards, the
// test hook podWorkers.workerChannelFn (set through reflect and unsafe,
// refusing on drift), and the work queue, status cache and allocation manager they are
// built with. It knows nothing of the driver: the syncer the workers call
// and the queue's memory are the caller's.
//
// # go:linkname, not a vendor overlay
//
// newPodWorkers is unexported. Two ways in work with the Go toolchain:
// a pull-style //go:linkname to k8s.io/kubernetes/pkg/kubelet.newPodWorkers
// (adapter.go), or `go mod vendor` plus a -overlay file that adds an
// exported constructor inside the vendored pkg/kubelet (overlays are refused
// for files in the module cache). We use linkname because it needs no
// generated tree: the vendor directory of 139 modules would have to be
// regenerated (and never committed) on every machine and CI run, every build
// would need -mod=vendor -overlay, and editors and `go test` would not work
// without them. linkname's risk is silent signature drift; it is closed by
// TestLinknameSignature (in package realkubelet, whose test binary
// realrun's gate runs), which parses pod_workers.go of the module in use
// from the module cache and fails unless newPodWorkers' parameters and the
// podSyncer method set are exactly the ones declared here. The nested module
// pins one kubelet version, so a version bump runs that test first.
package podworkers

import (
	"context"
	"time"
	_ "unsafe" // for go:linkname

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"
	"k8s.io/kubernetes/pkg/kubelet"
	"k8s.io/kubernetes/pkg/kubelet/allocation"
	kubecontainer "k8s.io/kubernetes/pkg/kubelet/container"
	kubetypes "k8s.io/kubernetes/pkg/kubelet/types"
	"k8s.io/kubernetes/pkg/kubelet/util/queue"
)

// podSyncer restates pkg/kubelet's unexported podSyncer interface. An
// interface value is passed as (itab, data) and its methods are called by
// their index in the name-sorted method set, so an interface with the same
// method set is call-compatible with upstream's; TestLinknameSignature
// fails if upstream's method set or newPodWorkers' parameters drift.
type podSyncer interface {
	SyncPod(ctx context.Context, updateType kubetypes.SyncPodType, pod *v1.Pod, mirrorPod *v1.Pod, podStatus *kubecontainer.PodStatus) (bool, func(), error)
	SyncTerminatingPod(ctx context.Context, pod *v1.Pod, podStatus *kubecontainer.PodStatus, gracePeriod *int64, podStatusFn func(*v1.PodStatus)) error
	SyncTerminatingRuntimePod(ctx context.Context, runningPod *kubecontainer.Pod) error
	SyncTerminatedPod(ctx context.Context, pod *v1.Pod, podStatus *kubecontainer.PodStatus) error
}

// Syncer is the method set the pod workers call back (pkg/kubelet's
// podSyncer).
type Syncer = podSyncer

// newPodWorkers is pkg/kubelet.newPodWorkers, pulled by name: the real
// constructor of the real pod workers (see the package doc for why linkname and
// not a vendor overlay).
//
//go:linkname newPodWorkers k8s.io/kubernetes/pkg/kubelet.newPodWorkers
func newPodWorkers(
	podSyncer podSyncer,
	recorder record.EventRecorder,
	workQueue queue.WorkQueue,
	resyncInterval, backOffPeriod time.Duration,
	podCache kubecontainer.ROCache,
	allocationManager allocation.Manager,
) kubelet.PodWorkers

// Kubelet's defaults for the two intervals (kubelet.go): they only shape
// the delays the workers hand to the work queue, which the driver records
// but does not time (see Queue).
const (
	resyncInterval = 10 * time.Second
	backOffPeriod  = 10 * time.Second
)

// allocationStub is the allocation manager the workers need for
// UpdatePodFromAllocation only (InPlacePodVerticalScaling is GA and locked
// on in v1.36): no resize is ever stored, so the pod is returned as is.
// Every other method is the nil embedded interface and panics if called,
// which would tell us the workers grew a new dependency.
type allocationStub struct{ allocation.Manager }

func (allocationStub) UpdatePodFromAllocation(pod *v1.Pod) (*v1.Pod, bool) { return pod, false }

// Queue is the kubelet work queue as the workers see it: it remembers which
// UIDs were enqueued. The delays are jittered by the workers with the
// global math/rand, so they are deliberately not kept: only "this UID asked
// for a retry or resync" reaches behaviour (the driver's sync-loop tick).
type Queue struct{ enqueue func(types.UID) }

// GetWork is never called by the pod workers.
func (q *Queue) GetWork() []types.UID { return nil }

// Enqueue records that uid wants a later UpdatePod(sync).
func (q *Queue) Enqueue(uid types.UID, _ time.Duration) { q.enqueue(uid) }

// Cache is the runtime status cache (PLEG's) as the workers read it: a
// status with no running container for every UID, returned at once. A cache
// miss upstream also returns an empty status with a nil error, so "idle" is
// what a real kubelet sees for pods it never ran; the fake runtime's
// containers are tracked by the driver, not reported here, so the
// first-sight terminal shortcut (SPEC §1.4 step 2) always sees an idle
// runtime (ops.CacheIdle).
//
// After a kubelet restart (the driver's restart.go) the new process's cache
// is the fake runtime's: Get reports a running container for a UID the
// driver's runtime may run (Running), so a terminal pod whose containers still run
// is not taken as terminated at first sight. Get is called only from
// UpdatePod, on the driver's goroutine, the only one that touches Running.
type Cache struct{ Running map[types.UID]bool }

// status is what Get answers (cache_get.go, cache_getctx.go: the two
// shapes of kubecontainer.ROCache).
func (c Cache) status(uid types.UID) *kubecontainer.PodStatus {
	s := &kubecontainer.PodStatus{ID: uid}
	if c.Running[uid] {
		s.ContainerStatuses = []*kubecontainer.Status{{State: kubecontainer.ContainerStateRunning}}
	}
	return s
}

// newer is what GetNewerThan answers, without blocking: the driver, not
// PLEG, decides when a worker proceeds (at its callback gate). It never
// fails, so the tape records no failed status read (history.ReadFailed)
// and the model pins every take to its call.
func (Cache) newer(uid types.UID) *kubecontainer.PodStatus {
	return &kubecontainer.PodStatus{ID: uid}
}

// New builds the real pod workers around syncer s, reading status cache c;
// enqueue is called with each UID the workers put on their work queue.
func New(s Syncer, c Cache, enqueue func(types.UID)) kubelet.PodWorkers {
	return newPodWorkers(s, &record.FakeRecorder{}, &Queue{enqueue: enqueue}, resyncInterval, backOffPeriod, c, allocationStub{})
}
