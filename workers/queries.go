package workers

import "k8s.io/apimachinery/pkg/types"

// The queries of SPEC §1.14. For a known UID each reads one milestone of the
// record. For an unknown UID the answer depends on whether SyncKnownPods ran:
// before it, anything may be running (CouldHaveRunningContainers=true, the
// others false); after it, an unknown UID is known not to run
// (CouldHaveRunningContainers=false, the Should* queries true).
// IsPodKnownTerminated and IsPodTerminationRequested are false for unknown
// UIDs either way.

// query answers a query under the pod lock: known(record) for a known UID, else unknown.
func (p *PodWorkers) query(uid types.UID, known func(*podSyncStatus) bool, unknown func(podsSynced bool) bool) bool {
	p.podLock.Lock()
	defer p.podLock.Unlock()
	if status, ok := p.podSyncStatuses[uid]; ok {
		return known(p.observedRecord(status)) // mutant B1: observedRecord
	}
	return unknown(p.podsSynced)
}

func never(bool) bool               { return false }
func ifSynced(podsSynced bool) bool { return podsSynced }
func unlessSynced(synced bool) bool { return !synced }

// The rules of SPEC §1.14 for a known record, one per query.
func knownTerminated(s *podSyncStatus) bool         { return s.terminated }
func couldHaveRunning(s *podSyncStatus) bool        { return !s.terminated }
func beFinished(s *podSyncStatus) bool              { return s.finished }
func terminationRequested(s *podSyncStatus) bool    { return s.terminationRequested }
func containersBeTerminating(s *podSyncStatus) bool { return s.startedTerminating }
func contentBeRemoved(s *podSyncStatus) bool        { return s.evicted || (s.deleted && s.terminated) }

// IsPodKnownTerminated reports that the pod's containers are known to be
// stopped for good (config loops use it: admission must not count the pod).
func (p *PodWorkers) IsPodKnownTerminated(uid types.UID) bool {
	return p.query(uid, knownTerminated, never)
}

// CouldHaveRunningContainers reports that containers may run or start (the
// status manager withholds a terminal phase while it is true, #108366).
func (p *PodWorkers) CouldHaveRunningContainers(uid types.UID) bool {
	return p.query(uid, couldHaveRunning, unlessSynced)
}

// ShouldPodBeFinished reports that SyncTerminatedPod completed (the status
// manager may then delete the pod from the API, #115331).
func (p *PodWorkers) ShouldPodBeFinished(uid types.UID) bool {
	return p.query(uid, beFinished, ifSynced)
}

// IsPodTerminationRequested reports that the pod is being torn down
// (admission is skipped for it).
func (p *PodWorkers) IsPodTerminationRequested(uid types.UID) bool {
	return p.query(uid, terminationRequested, never)
}

// ShouldPodContainersBeTerminating reports that the worker acknowledged the
// termination: no SyncPod runs or will run, so no container will start.
func (p *PodWorkers) ShouldPodContainersBeTerminating(uid types.UID) bool {
	return p.query(uid, containersBeTerminating, ifSynced)
}

// ShouldPodRuntimeBeRemoved reports that nothing runs, so containers and
// sandboxes may be garbage-collected and volumes removed.
func (p *PodWorkers) ShouldPodRuntimeBeRemoved(uid types.UID) bool {
	return p.query(uid, knownTerminated, ifSynced)
}

// ShouldPodContentBeRemoved reports that the pod's content (dead containers,
// logs) may be removed: it was evicted, or deleted and terminated.
func (p *PodWorkers) ShouldPodContentBeRemoved(uid types.UID) bool {
	return p.query(uid, contentBeRemoved, ifSynced)
}

// KnownUIDsLocked lists the UIDs that have a record, sorted; the caller
// holds the pod lock and must not change the list. No query of the kubelet's pod workers answers it: it
// is bookkeeping for the simulated target's history (history.Answers.Known).
func (p *PodWorkers) KnownUIDsLocked() []types.UID { return p.sortedUIDsLocked() }

// PodsSynced reports whether SyncKnownPods ran at least once.
func (p *PodWorkers) PodsSynced() bool {
	p.podLock.Lock()
	defer p.podLock.Unlock()
	return p.podsSynced
}
