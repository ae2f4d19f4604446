// Package kstatus runs the real kubelet status manager
// (k8s.io/kubernetes/pkg/kubelet/status, NewManager) against the API-server
// model of package apiserver, with a real basic pod manager
// (pkg/kubelet/pod.NewBasicPodManager), for realkubelet's driver.
//
// The manager's Start loop never returns and syncs on a ticker and on a
// channel, so it is never started: the driver calls its sync step,
// (*manager).syncBatch, through a guarded go:linkname (syncbatch.go), at
// moves of its own. Everything else is the manager's public interface,
// called the way pkg/kubelet calls it (SetPodStatus from SyncPod and
// SyncTerminatingPod, SetPodStatus and TerminatePod from
// SyncTerminatedPod, RemoveOrphanedStatuses from housekeeping), with the
// statuses a fake runtime produces (the kubelet's generateAPIPodStatus is
// a *Kubelet method: the statuses here carry the phase only).
package kstatus

import (
	"context"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
	kubepod "k8s.io/kubernetes/pkg/kubelet/pod"
	"k8s.io/kubernetes/pkg/kubelet/status"

	"github.com/podsim/podsim/realkubelet/apiserver"
)

// Actor is the API-server actor name of the status manager's client: the
// ops it makes are the ones the driver records as the status manager's.
const Actor = "status manager"

// Manager is one kubelet process's status manager and pod manager.
type Manager struct {
	status.Manager
	Pods   kubepod.Manager
	logger klog.Logger
}

// SafetyFunc is the pod workers' CouldHaveRunningContainers.
type SafetyFunc func(types.UID) bool

// deletionSafety is status.PodDeletionSafetyProvider over the pod workers.
// Upstream it is the *Kubelet, whose PodCouldHaveRunningContainers asks
// the pod workers and then the container manager about DRA claims to
// unprepare; the pods here claim no resources, so the pod workers' answer
// is the whole answer.
type deletionSafety struct{ could SafetyFunc }

func (d deletionSafety) PodCouldHaveRunningContainers(pod *v1.Pod) bool { return d.could(pod.UID) }

// latencyStub is the pod startup latency tracker: metrics only.
type latencyStub struct{}

func (latencyStub) RecordStatusUpdated(*v1.Pod)     {}
func (latencyStub) DeletePodStartupState(types.UID) {}

// New makes a status manager writing to api, with the pod workers'
// CouldHaveRunningContainers as its deletion safety, and an empty pod
// manager. It is never started (package comment).
func New(api *apiserver.Server, could SafetyFunc, logger klog.Logger) *Manager {
	pods := kubepod.NewBasicPodManager()
	m := status.NewManager(api.Client(Actor), pods, deletionSafety{could}, latencyStub{})
	return &Manager{Manager: m, Pods: pods, logger: logger}
}

// Sync is one pass of the manager's sync loop: syncBatch(all) — all=false
// is the pass a status change triggers, all=true the periodic one (which
// also reconciles and deletes). It returns how many pods it synced.
func (m *Manager) Sync(ctx context.Context, all bool) int {
	return syncBatchOf(m.Manager, klog.NewContext(ctx, m.logger), all)
}

// SetPhase is SetPodStatus with the pod's current status (the cached one,
// else the pod's) given phase (none: unchanged), under the phase rules of
// the kubelet's generateAPIPodStatus, and then fn, if any: the calls
// SyncPod, SyncTerminatingPod and SyncTerminatedPod make.
func (m *Manager) SetPhase(pod *v1.Pod, phase v1.PodPhase, fn func(*v1.PodStatus)) {
	cached, ok := m.GetPodStatus(pod.UID)
	st := cached
	if !ok {
		st = *pod.Status.DeepCopy()
	}
	if phase != "" {
		st.Phase = phase
	}
	st.Phase = generatedPhase(st.Phase, cached.Phase, pod.Status.Phase)
	if fn != nil {
		fn(&st)
	}
	m.SetPodStatus(m.logger, pod, st)
}

// generatedPhase is the phase rule of the kubelet's generateAPIPodStatus
// (a *Kubelet method, restated): a non-terminal phase gives way to a
// terminal one the status manager holds, else to a terminal one in the
// pod (the API's); and a pod whose API phase is terminal keeps it
// ("pods are not allowed to transition out of terminal phases").
func generatedPhase(computed, cached, api v1.PodPhase) v1.PodPhase {
	p := computed
	if !terminal(p) {
		switch {
		case terminal(cached):
			p = cached
		case terminal(api):
			p = api
		}
	}
	if terminal(api) && p != api {
		p = api
	}
	return p
}

func terminal(p v1.PodPhase) bool { return p == v1.PodSucceeded || p == v1.PodFailed }

// Terminated is what a successful SyncTerminatedPod does with the status
// manager: the final SetPodStatus, then TerminatePod.
func (m *Manager) Terminated(pod *v1.Pod) {
	m.SetPhase(pod, "", nil)
	m.TerminatePod(m.logger, pod)
}

// RemoveOrphaned is housekeeping's removeOrphanedPodStatuses: statuses of
// pods the pod manager no longer has are dropped.
func (m *Manager) RemoveOrphaned() {
	keep := map[types.UID]bool{}
	pods, mirrors, _ := m.Pods.GetPodsAndMirrorPods()
	for _, p := range append(pods, mirrors...) {
		keep[p.UID] = true
	}
	m.RemoveOrphanedStatuses(m.logger, keep)
}
