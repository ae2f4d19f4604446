package world

import (
	"slices"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/model/ops"
	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/workers"
	"github.com/podsim/podsim/world/kubebugs"
)

// The kubelet around the pod workers (SPEC §2), switched on by Plan.Node:
// admission with resource accounting, the status manager and the API
// server model. The node shutdown manager, the eviction manager and the
// kubelet restart have files of their own. Everything here runs in
// simulated goroutines: admission in the sync loop (HandlePodAdditions),
// the status manager as a daemon of its own.

// KubeletBugs re-introduces the kubelet-level bugs of docs/bugs.md ("K"
// entries and virtual-kubelet's V2), one switch each (package kubebugs says
// which invariant catches each; this file and reaper.go say where each acts).
type KubeletBugs = kubebugs.Bugs

// kubelet is the kubelet's memory besides the pod workers: lost at a
// kubelet restart (restart.go), unlike the API server's state, which lives
// on configPod.
type kubelet struct {
	node *plan.Node
	// status is the status manager's cache: the phase the kubelet wants
	// published and whether TerminatePod ran (podIsFinished).
	status map[types.UID]*PodStatus
	// shutdownAt is when the last node shutdown began (unset: none);
	// shutdownBusy: its processing runs (the manager's event loop reads
	// nothing else meanwhile); cancelPending: a cancellation came
	// meanwhile, read once it returns; cancelled: the loop read a
	// cancellation of it, and admission is open again (shutdown.go).
	shutdownAt                             time.Duration
	shutdownBusy, cancelPending, cancelled bool
	// learned: the process started while logind shut the node down and
	// read so at its start (restart.go), as a kubelet that asks logind's
	// PreparingForShutdown would: admission stays closed.
	learned bool
}

// PodStatus is the status manager's record of one pod (the real-goroutine
// baseline keeps its own cache of them, with StatusIn).
type PodStatus struct {
	Phase    v1.PodPhase // "" until the kubelet sets one
	Finished bool        // SyncTerminatedPod succeeded: the API delete may go ahead
}

func newKubelet(n *plan.Node) *kubelet {
	return &kubelet{node: n, status: map[types.UID]*PodStatus{}, shutdownAt: unset}
}

func (k *kubelet) statusOf(uid types.UID) *PodStatus { return StatusIn(k.status, uid) }

// StatusIn is uid's record in a status manager's cache, made on first use.
func StatusIn(status map[types.UID]*PodStatus, uid types.UID) *PodStatus {
	s := status[uid]
	if s == nil {
		s = &PodStatus{}
		status[uid] = s
	}
	return s
}

func terminalPhase(p v1.PodPhase) bool { return p == v1.PodSucceeded || p == v1.PodFailed }

// ask is a query a kubelet subsystem makes of the pod workers, recorded
// like the plan's own queries (it is an observation point for the model).
func (w *World) ask(kind ops.QueryKind, uid types.UID) bool {
	pw := w.PW
	q := [...]func(types.UID) bool{pw.IsPodKnownTerminated, pw.CouldHaveRunningContainers, pw.ShouldPodBeFinished,
		pw.IsPodTerminationRequested, pw.ShouldPodContainersBeTerminating, pw.ShouldPodRuntimeBeRemoved,
		pw.ShouldPodContentBeRemoved}[kind]
	id := w.call(ops.Query{Kind: kind, UID: string(uid)})
	ans := q(uid)
	w.ret(id, ops.Answer(ans))
	return ans
}

// sortedUIDs lists every pod the plan named so far, sorted (the oracles
// ask at every pod-lock release: a list kept, not sorted each time). The
// caller must not change it; a pod's first action makes a new list
// (newPod), so a loop over an older one is not disturbed.
func (w *World) sortedUIDs() []types.UID { return w.uids }

// newPod is the config source's first sight of a pod.
func (w *World) newPod(a plan.Action) *configPod {
	p := w.kept.pods.Next()
	*p = configPod{action: a, phase: v1.PodRunning, firstAddAt: unset, deletedAt: unset}
	p.action.Name = a.PodName() // built once: PodName returns a set Name
	if a.Pending {
		p.phase = v1.PodPending
	}
	i, _ := slices.BinarySearch(w.uids, a.UID)
	// Each insert makes a new list (the old one, unchanged, may still be
	// read), in memory Renew keeps.
	w.uids, w.inOrder = w.kept.uids.Insert(w.uids, i, a.UID), w.kept.inOrder.Insert(w.inOrder, i, p)
	if i, ok := plan.LetterIndex(a.UID); ok {
		w.byLetter[i] = p
	}
	return p
}

// housekeepingExtras is the rest of HandlePodCleanups after SyncKnownPods
// (SPEC §1.12): restart the active pods the workers no longer know (K4),
// kill the terminal deleted pods they do not know (filterTerminalPodsToDelete,
// B13) and the pods only the runtime knows (RunningPod, grace 1).
func (w *World) housekeepingExtras(desired []desiredPod, known workers.KnownPods, running *[]types.UID) {
	for i := range desired {
		p := desired[i].config // w.pod(uid)
		uid := p.action.UID
		if _, ok := known.Get(uid); ok || !p.admitted {
			continue
		}
		if w.restartable(uid) {
			if w.kube != nil {
				w.note(history.HousekeepingRestart{UID: uid})
			}
			w.updatePod(workers.UpdatePodOptions{UpdateType: workers.SyncPodCreate, Pod: w.desiredObject(&desired[i])}, 0)
		}
	}
	if !w.Bugs.B13NoTerminalDeleteFilter {
		for i := range desired {
			p := desired[i].config
			uid := p.action.UID
			if _, ok := known.Get(uid); ok || p.deletion == nil || !terminalPhase(p.phase) || w.Runtime.Running(uid) > 0 {
				continue
			}
			w.updatePod(workers.UpdatePodOptions{UpdateType: workers.SyncPodKill, Pod: w.desiredObject(&desired[i])}, 0)
		}
	}
	w.killRuntimeOnlyPods(known, running)
}

// restartable: the pod is active for the restart loop: not rejected at
// admission and not terminal in config. Upstream's filterOutInactivePods
// also reads the status manager's phase; we leave that out here, because
// after a static pod's same-UID re-add it may still hold the old
// incarnation's terminal phase, which would block the restart L4 owes.
func (w *World) restartable(uid types.UID) bool {
	p := w.pod(uid)
	return !p.rejected && !terminalPhase(p.phase)
}

// killRuntimeOnlyPods kills, with grace 1, every pod the runtime runs that
// is neither in config nor syncing or terminating in the workers (a pod
// left over from before a kubelet restart); running is a buffer for the
// runtime's list.
func (w *World) killRuntimeOnlyPods(known workers.KnownPods, running *[]types.UID) {
	*running = w.Runtime.RunningUIDs(*running)
	for _, uid := range *running {
		if r, ok := known.Get(uid); ok && r.State != workers.TerminatedPodWork {
			continue
		}
		if p := w.pod(uid); p != nil && p.inConfig {
			continue
		}
		one := int64(1)
		w.updatePod(workers.UpdatePodOptions{UpdateType: workers.SyncPodKill,
			RunningPod:     &workers.RunningPod{ID: uid, Name: "pod-" + string(uid), Namespace: "default"},
			KillPodOptions: &workers.KillPodOptions{PodTerminationGracePeriodSecondsOverride: &one}}, 0)
	}
}

// KubeletBusy reports whether the kubelet-level actors still have work in
// progress that the settle phase must let finish: an eviction or node
// shutdown goroutine running, or a pod in the API whose status write,
// watch echo or final delete is still to come. (For the settle phase's
// "is the world still busy?" predicates; false without Plan.Node.)
func (w *World) KubeletBusy() bool {
	if w.kube == nil {
		return false
	}
	if w.actorsRunning > 0 {
		return true
	}
	for _, p := range w.inOrder {
		if p.echoDue {
			return true
		}
		if !p.inAPI {
			continue
		}
		st := w.kube.statusOf(p.action.UID)
		if (st.Phase != "" && st.Phase != p.apiPhase && !terminalPhase(p.apiPhase)) || (p.deletion != nil && st.Finished) {
			return true
		}
	}
	return false
}
