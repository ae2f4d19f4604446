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
// a *Kubelet method: the statuses here carry the phase and the two
// readiness conditions, ready.go).
package kstatus

import (
	"context"
	"maps"
	"reflect"
	"slices"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
	kubepod "k8s.io/kubernetes/pkg/kubelet/pod"
	"k8s.io/kubernetes/pkg/kubelet/status"
	kubetypes "k8s.io/kubernetes/pkg/kubelet/types"
	kubeletutil "k8s.io/kubernetes/pkg/kubelet/util"

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
	// asked is the phase each pod's latest SetPhase gave SetPodStatus, and
	// the number of full passes (fullPasses) made before it; a pod whose
	// status was dropped (RemoveOrphaned) is left out. Unwritten reads it.
	asked      map[types.UID]Asked
	fullPasses int
	// fresh are the UIDs whose SetPhase (or TerminatePod) gave the manager
	// a new status version since the last pass: every pass, a triggered
	// one too, syncs those (syncBatch's !all branch: a version newer than
	// the API's). Fresh returns and clears them.
	fresh map[types.UID]bool
	// dropped are the UIDs whose status RemoveOrphaned dropped since the
	// last full pass: upstream's RemoveOrphanedStatuses keeps their
	// apiStatusVersions, so a status set again starts at version 1, below
	// the API's, and triggered passes skip it until a full pass reconciles
	// (Dropped).
	dropped map[types.UID]bool
	// running: uid's containers run (and, the fake runtime's probes
	// answering at once, are ready), from a SyncPod that returned Running
	// until one that returned Succeeded or a SyncTerminatingPod that
	// stopped them (ready.go).
	running map[types.UID]bool
	// LoseSets, if set, is a planted bug: SetPhase skips SetPodStatus and
	// calls it instead (the driver's plant.go).
	LoseSets func()
	// LoseReadiness, if set, is a planted bug: SetPhase's statuses carry
	// no readiness conditions, and it is called for each (plant.go).
	LoseReadiness func()
}

// Asked is a SetPhase's phase, whether its status said the containers
// were ready (ready.go), and how many full passes came before it.
type Asked struct {
	Phase      v1.PodPhase
	Ready      bool
	FullPasses int
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

// New makes a status manager writing to api, with the pod workers'
// CouldHaveRunningContainers as its deletion safety, and an empty pod
// manager. It is never started (package comment).
func New(api *apiserver.Server, could SafetyFunc, logger klog.Logger) *Manager {
	pods := kubepod.NewBasicPodManager()
	// The kubelet's own startup latency tracker: metrics only, and idle
	// here (it records only pods it saw on the watch, and none is shown
	// to it). A stub of ours would have to restate its interface, whose
	// methods gained a logger in v1.37; the kubelet's own fits any tree.
	m := status.NewManager(api.Client(Actor), pods, deletionSafety{could}, kubeletutil.NewPodStartupLatencyTracker())
	return &Manager{Manager: m, Pods: pods, logger: logger, asked: map[types.UID]Asked{}, running: map[types.UID]bool{},
		fresh: map[types.UID]bool{}, dropped: map[types.UID]bool{}}
}

// Sync is one pass of the manager's sync loop: syncBatch(all) — all=false
// is the pass a status change triggers, all=true the periodic one (which
// also reconciles and deletes). It returns how many pods it synced.
func (m *Manager) Sync(ctx context.Context, all bool) int {
	m.countPass(all)
	return syncBatchOf(m.Manager, klog.NewContext(ctx, m.logger), all)
}

// SetPhase is SetPodStatus with the pod's current status (the cached one,
// else the pod's) given phase (none: unchanged), under the phase rules of
// the kubelet's generateAPIPodStatus, with the readiness conditions of
// the containers (ready.go), and then fn, if any: the calls SyncPod,
// SyncTerminatingPod and SyncTerminatedPod make.
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
	m.setReadiness(pod.UID, phase, &st)
	if m.LoseReadiness != nil {
		m.LoseReadiness()
		st.Conditions = nil
	}
	if fn != nil {
		fn(&st)
	}
	if m.LoseSets != nil {
		m.LoseSets()
	} else {
		m.SetPodStatus(m.logger, pod, st)
	}
	// The manager ignores a status equal to its cached one by the
	// kubelet's fields; any other it stores with a new version.
	if after, _ := m.GetPodStatus(pod.UID); !ok || !reflect.DeepEqual(after, cached) {
		m.fresh[pod.UID] = true
	}
	m.asked[pod.UID] = Asked{Phase: st.Phase, Ready: m.running[pod.UID], FullPasses: m.fullPasses}
}

// Asked is uid's latest SetPhase, if one was made and its status not
// dropped since.
func (m *Manager) Asked(uid types.UID) (Asked, bool) {
	a, ok := m.asked[uid]
	return a, ok
}

// AskedUIDs are the UIDs Asked knows, sorted.
func (m *Manager) AskedUIDs() []types.UID { return slices.Sorted(maps.Keys(m.asked)) }

// Fresh are the UIDs given a new status version since the last call, in
// order; the call forgets them.
func (m *Manager) Fresh() []types.UID {
	out := slices.Sorted(maps.Keys(m.fresh))
	clear(m.fresh)
	return out
}

// Dropped reports whether uid's status was dropped (RemoveOrphaned) since
// the last full pass.
func (m *Manager) Dropped(uid types.UID) bool { return m.dropped[uid] }

// FullPasses counts the full passes (syncBatch(true)) made so far.
func (m *Manager) FullPasses() int { return m.fullPasses }

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
	m.fresh[pod.UID] = true // TerminatePod forces a new version
	// TerminatePod makes a non-terminal phase Failed (not a static pod's).
	if a := m.asked[pod.UID]; !terminal(a.Phase) && !kubetypes.IsStaticPod(pod) {
		a.Phase, a.FullPasses = v1.PodFailed, m.fullPasses
		m.asked[pod.UID] = a
	}
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
	for uid := range m.asked {
		if !keep[uid] {
			delete(m.asked, uid)
			delete(m.fresh, uid)
			m.dropped[uid] = true
		}
	}
}
