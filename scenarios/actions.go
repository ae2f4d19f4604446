package scenarios

import (
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/workers"
)

// do performs one plan action as the kubelet's loops would.
func (w *World) do(a Action) {
	p := w.pods[a.UID]
	if p == nil && a.UID != "" {
		p = &configPod{action: a, phase: v1.PodRunning}
		w.pods[a.UID] = p
	}
	switch a.Kind {
	case Create:
		p.inConfig, p.version = true, p.version+1
		w.update(workers.SyncPodCreate, a.UID, nil)
	case Update:
		p.version++
		w.update(workers.SyncPodUpdate, a.UID, nil)
	case Sync:
		w.update(workers.SyncPodSync, a.UID, nil)
	case Delete:
		p.version++
		g := max(a.Grace, 0)
		p.deletion = &g
		w.update(workers.SyncPodUpdate, a.UID, nil)
	case Remove:
		p.inConfig = false
		w.update(workers.SyncPodKill, a.UID, nil)
	case Kill:
		w.update(workers.SyncPodKill, a.UID, w.killOptions(a))
	case KillNow:
		ko := w.killOptions(a)
		_ = w.PW.KillPodNow(w.podOf(a.UID), ko.Evict, ko.PodTerminationGracePeriodSecondsOverride, nil)
	case RuntimeKill:
		one := int64(1)
		w.PW.UpdatePod(workers.UpdatePodOptions{UpdateType: workers.SyncPodKill,
			RunningPod:     &workers.RunningPod{ID: a.UID, Name: "pod-" + string(a.UID), Namespace: "default"},
			KillPodOptions: &workers.KillPodOptions{PodTerminationGracePeriodSecondsOverride: &one}})
	case Finish:
		p.version++
		p.phase = v1.PodPhase(a.Terminal)
		w.update(workers.SyncPodUpdate, a.UID, nil)
	case SyncKnown:
		w.housekeeping()
	case Query:
		w.query(a.UID)
	}
}

func (w *World) update(t workers.UpdateType, uid types.UID, ko *workers.KillPodOptions) {
	w.PW.UpdatePod(workers.UpdatePodOptions{UpdateType: t, Pod: w.podOf(uid), KillPodOptions: ko})
}

func (w *World) killOptions(a Action) *workers.KillPodOptions {
	ko := &workers.KillPodOptions{Evict: a.Evict}
	if a.Grace >= 0 {
		g := a.Grace
		ko.PodTerminationGracePeriodSecondsOverride = &g
	}
	return ko
}

// housekeeping is HandlePodCleanups' pod-worker part: SyncKnownPods with
// the pods in config, then create for desired pods it no longer knows
// (restart after UID reuse, SPEC §1.12 caller contract).
func (w *World) housekeeping() {
	desired := w.desired()
	known := w.PW.SyncKnownPods(desired)
	for _, pod := range desired {
		if _, ok := known[pod.UID]; !ok {
			w.PW.UpdatePod(workers.UpdatePodOptions{UpdateType: workers.SyncPodCreate, Pod: pod})
		}
	}
}

// query reads every query, as the subsystems of SPEC §2 do.
func (w *World) query(uid types.UID) {
	pw := w.PW
	_ = pw.IsPodKnownTerminated(uid)
	_ = pw.CouldHaveRunningContainers(uid)
	_ = pw.ShouldPodBeFinished(uid)
	_ = pw.IsPodTerminationRequested(uid)
	_ = pw.ShouldPodContainersBeTerminating(uid)
	_ = pw.ShouldPodRuntimeBeRemoved(uid)
	_ = pw.ShouldPodContentBeRemoved(uid)
}
