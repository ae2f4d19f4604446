package workers

import "k8s.io/apimachinery/pkg/types"

// The queries of SPEC §1.14. For a known UID each reads one milestone of the
// record. For an unknown UID the answer depends on whether SyncKnownPods ran:
// before it, anything may be running (CouldHaveRunningContainers=true, the
// others false); after it, an unknown UID is known not to run
// (CouldHaveRunningContainers=false, the Should* queries true).
// IsPodKnownTerminated and IsPodTerminationRequested are false for unknown
// UIDs either way.

// query answers the per-UID query q (an index of AnswersLocked's answers)
// under the pod lock.
func (p *PodWorkers) query(uid types.UID, q int) bool {
	p.podLock.Lock()
	defer p.podLock.Unlock()
	answers, _ := p.AnswersLocked(uid)
	return answers[q]
}

// AnswersLocked is what the seven per-UID queries would answer about uid
// now, in the order of the query methods below, and whether uid has a
// record (known), with one record lookup; the caller holds the pod lock
// (the world's probe asks at every release). These are the rules of SPEC
// §1.14: for a known record, one milestone each; for an unknown UID, the
// answer before and after the first SyncKnownPods.
func (p *PodWorkers) AnswersLocked(uid types.UID) (answers [7]bool, known bool) {
	status, known := p.records.get(uid)
	if !known {
		synced := p.podsSynced
		return [7]bool{false, !synced, synced, false, synced, synced, synced}, false
	}
	s := p.observedRecord(status) // mutant B1: observedRecord
	return [7]bool{s.terminated, !s.terminated, s.finished, s.terminationRequested, s.startedTerminating,
		s.terminated, s.evicted || (s.deleted && s.terminated)}, true
}

// IsPodKnownTerminated reports that the pod's containers are known to be
// stopped for good (config loops use it: admission must not count the pod).
func (p *PodWorkers) IsPodKnownTerminated(uid types.UID) bool {
	return p.query(uid, 0)
}

// CouldHaveRunningContainers reports that containers may run or start (the
// status manager withholds a terminal phase while it is true, #108366).
func (p *PodWorkers) CouldHaveRunningContainers(uid types.UID) bool {
	return p.query(uid, 1)
}

// ShouldPodBeFinished reports that SyncTerminatedPod completed (the status
// manager may then delete the pod from the API, #115331).
func (p *PodWorkers) ShouldPodBeFinished(uid types.UID) bool {
	return p.query(uid, 2)
}

// IsPodTerminationRequested reports that the pod is being torn down
// (admission is skipped for it).
func (p *PodWorkers) IsPodTerminationRequested(uid types.UID) bool {
	return p.query(uid, 3)
}

// ShouldPodContainersBeTerminating reports that the worker acknowledged the
// termination: no SyncPod runs or will run, so no container will start.
func (p *PodWorkers) ShouldPodContainersBeTerminating(uid types.UID) bool {
	return p.query(uid, 4)
}

// ShouldPodRuntimeBeRemoved reports that nothing runs, so containers and
// sandboxes may be garbage-collected and volumes removed.
func (p *PodWorkers) ShouldPodRuntimeBeRemoved(uid types.UID) bool {
	return p.query(uid, 5)
}

// ShouldPodContentBeRemoved reports that the pod's content (dead containers,
// logs) may be removed: it was evicted, or deleted and terminated.
func (p *PodWorkers) ShouldPodContentBeRemoved(uid types.UID) bool {
	return p.query(uid, 6)
}

// KnownUIDsLocked lists the UIDs that have a record, sorted; the caller
// holds the pod lock and must not change the list. No query of the kubelet's pod workers answers it: it
// is bookkeeping for the simulated target's history (history.Answers.Known).
func (p *PodWorkers) KnownUIDsLocked() []types.UID { return p.sortedUIDsLocked() }

// PodsSynced reports whether SyncKnownPods ran at least once.
func (p *PodWorkers) PodsSynced() bool {
	p.podLock.Lock()
	defer p.podLock.Unlock()
	return p.PodsSyncedLocked()
}

// PodsSyncedLocked is PodsSynced for a caller that holds the pod lock.
func (p *PodWorkers) PodsSyncedLocked() bool { return p.podsSynced }
