package workers

import (
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/workers/internal/mutant"
)

// SyncKnownPods is housekeeping's reconciliation (SPEC §1.12). From now on
// an unknown UID means "not running". Every record whose UID is not desired
// (an orphan) or that asked for a restart goes through
// removeTerminatedWorkerLocked, which purges it if it is finished and drives
// unfinished orphans to termination. The result describes every record that
// is kept, in UID order; the caller must re-create with UpdatePod(create)
// each desired pod missing from it. Records are visited in UID order, so replays and wake-ups
// happen in a deterministic order.
func (p *PodWorkers) SyncKnownPods(desiredPods []*v1.Pod) KnownPods {
	p.podLock.Lock()
	defer p.podLock.Unlock()
	p.podsSynced = true
	workers := make(KnownPods, 0, len(p.records))
	for _, uid := range p.sortedUIDsLocked() {
		status := p.records.at(uid)
		orphan := !desiredUID(desiredPods, uid)
		if (status.restartRequested || orphan) && p.removeTerminatedWorkerLocked(status, orphan) {
			continue
		}
		workers = append(workers, KnownPod{uid, podWorkerSyncOf(status, orphan)})
	}
	return workers
}

// desiredUID: a pod of desiredPods has uid. A run has a few pods, so a
// scan costs less than filling a set for each call.
func desiredUID(desiredPods []*v1.Pod, uid types.UID) bool {
	for _, pod := range desiredPods {
		if pod.UID == uid {
			return true
		}
	}
	return false
}

// podWorkerSyncOf reports a kept record: its phase, and whether a config pod
// (not only a runtime pod) is known, from the last consumed update or, if
// none was consumed, the pending one.
func podWorkerSyncOf(status *podSyncStatus, orphan bool) PodWorkerSync {
	sync := PodWorkerSync{State: status.workType(), Orphan: orphan}
	update := status.activeUpdate
	if update == nil {
		update = status.pendingUpdate
	}
	if update != nil && update.Pod != nil {
		sync.HasConfig = true
		sync.Static = isStaticPod(update.Pod)
	}
	return sync
}

// removeTerminatedWorkerLocked is the kubelet's removeTerminatedWorker (SPEC
// §1.12 step 2). It reports whether the record was purged:
//   - finished: purged (the UID may restart, or is forgotten);
//   - unfinished and still desired (restart requested, still terminating):
//     kept, waiting;
//   - unfinished orphan: deleted=true, then purged if it never started and
//     was never seen at runtime; otherwise driven to termination by the
//     worker itself, because no config update will ever come for it
//     (#113145).
func (p *PodWorkers) removeTerminatedWorkerLocked(status *podSyncStatus, orphan bool) bool {
	if status.finished {
		p.purgeRecordLocked(status)
		return true
	}
	if !orphan || p.mutants.Has(mutant.B11) { // mutant B11: unfinished orphans are never driven
		return false
	}
	status.deleted = true
	switch {
	case !status.started && !status.observedRuntime:
		p.purgeRecordLocked(status)
		return true
	case !status.terminationRequested:
		p.terminateOrphanLocked(status)
	default:
		p.requeueLastPodUpdateLocked(status)
	}
	return false
}

// terminateOrphanLocked starts termination of a started orphan: grace from
// the last pod (no override) or 1, then a replay of the last update.
//
// G4 (SPEC §1.17-4): upstream does not cancel the in-flight sync here, unlike
// UpdatePod; a SyncPod for a pod that left config would run on with a live
// context. The cancellation Event fires, as for any termination request.
func (p *PodWorkers) terminateOrphanLocked(status *podSyncStatus) {
	status.terminationRequested, status.terminatingAt = true, p.rt.Now()
	grace := int64(1)
	if status.activeUpdate != nil && status.activeUpdate.Pod != nil {
		grace, _ = calculateEffectiveGracePeriod(status, status.activeUpdate.Pod, nil)
	}
	status.gracePeriod = grace
	p.requeueLastPodUpdateLocked(status)
	if !p.mutants.Has(mutant.G4) { // mutant G4: the in-flight SyncPod runs on uncancelled
		p.cancelSyncLocked(status)
	}
}

// purgeRecordLocked forgets a UID: the record goes, its worker (if any)
// exits, and its static full name is released.
//
// G2 (SPEC §1.17-2): purging an unstarted orphan that had been killed leaves
// upstream's CompletedCh open forever; it fires here, as on every other
// finalisation path. The record also counts as terminated from now on
// (unknown after sync = not running), so the kill is complete.
func (p *PodWorkers) purgeRecordLocked(status *podSyncStatus) {
	p.records.remove(status.uid)
	p.recordsChangedLocked()
	p.closeUpdatesLocked(status)
	if p.mutants.Has(mutant.G2) { // mutant G2: a purged unstarted orphan's kills never complete
		status.notifyPostTerminating = nil
	}
	p.fireKillCompletionsLocked(status)
	p.releaseStaticPodLocked(status)
}
