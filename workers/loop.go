package workers

import (
	"errors"
	"fmt"
	"time"

	"github.com/podsim/podsim/workers/internal/mutant"
)

// podWork is one consumed update: the phase it runs in (computed from the
// record at consumption, SPEC §1.6), the update and the cancellation Event
// of the sync context it runs under.
type podWork struct {
	workType WorkType
	options  UpdatePodOptions
	cancel   Event
}

// startDecision is what the worker does after startPodSync.
type startDecision int

const (
	// startRun: run the sync call for the consumed update.
	startRun startDecision = iota
	// startWait: nothing to run now; wait for the next wake-up.
	startWait
	// startExit: the worker goroutine must end.
	startExit
)

// syncResult is the outcome of one sync call.
type syncResult struct {
	err        error
	isTerminal bool
	// statusRead is false when the runtime status could not be read, so the
	// sync call did not run (the kubelet's FailedSync).
	statusRead bool
	syncedAt   time.Time
}

// podWorkerLoop is the goroutine worker/<uid> (SPEC §1.8): it runs one sync
// per wake-up and exits when the pod finishes, can never start, is purged,
// or the workers shut down. It owns its record pointer: a record created
// later for a reused UID belongs to another worker.
func (p *PodWorkers) podWorkerLoop(status *podSyncStatus, updates Signal) {
	var lastSyncTime time.Time
	for updates.Wait() {
		work, decision := p.startPodSync(status)
		if decision == startExit {
			return
		}
		if decision == startWait {
			continue
		}
		result := p.runSyncWork(status, work, lastSyncTime)
		if result.statusRead {
			lastSyncTime = result.syncedAt
		}
		if p.finishSyncWork(status, work, result) {
			return
		}
	}
}

// startPodSync takes the pending update under the pod lock.
func (p *PodWorkers) startPodSync(status *podSyncStatus) (podWork, startDecision) {
	p.podLock.Lock()
	defer p.podLock.Unlock()
	return p.startPodSyncLocked(status)
}

// startPodSyncLocked is SPEC §1.8 step 1: consume the pending update, decide
// its work type from the record, (re)create the cancellation Event, and
// decide whether the pod may start.
func (p *PodWorkers) startPodSyncLocked(status *podSyncStatus) (podWork, startDecision) {
	if p.records.at(status.uid) != status || status.updates == nil {
		// Purged, finished or shut down: this worker has nothing left to do.
		return podWork{}, startExit
	}
	if status.pendingUpdate == nil {
		status.working = false
		return podWork{}, startWait
	}
	status.working = true
	work := podWork{workType: status.workType(), options: *status.pendingUpdate}
	if p.mutants.Has(mutant.B2) { // mutant B2: the work type comes from the update, the kill is lost
		work.workType = lostKillWorkType(status, work.options)
	}
	status.pendingUpdate = nil
	// Drain a wake-up that arrived before the lock: it is this update's.
	status.updates.TryWait()
	work.cancel = p.syncContextLocked(status)

	switch {
	case status.started:
		status.mergeLastUpdate(work.options)
	case work.options.RunningPod != nil && work.workType == TerminatingPodWork:
		// Runtime-only pods terminate without ever being started (§1.9).
		status.mergeLastUpdate(work.options)
	case work.options.Pod == nil:
		panic(fmt.Sprintf("workers: startPodSync: pod %s has no pod spec and is not terminating", status.uid))
	default:
		if decision := p.startPodLocked(status, work); decision != startRun {
			return work, decision
		}
	}
	status.inFlight, status.inFlightWork = true, work.workType
	return work, startRun
}

// syncContextLocked returns the record's cancellation Event, creating a new
// one, cancel/<uid>#<n>, when there is none or the last one fired (§1.15).
func (p *PodWorkers) syncContextLocked(status *podSyncStatus) Event {
	if status.cancel == nil || status.cancelFired {
		status.cancelCount, status.cancelFired = status.cancelCount+1, false
		status.cancel = p.rt.NewEvent(p.names.cancel(status.uid, status.cancelCount))
	}
	return status.cancel
}

// startPodLocked asks allowPodStart for a pod that never started. A pod that
// can never start is cleaned up; one that cannot start yet keeps its update
// pending (#116995) and waits for the kubelet's backoff re-sync.
func (p *PodWorkers) startPodLocked(status *podSyncStatus, work podWork) startDecision {
	canStart, canEverStart := p.allowPodStartLocked(work.options.Pod)
	switch {
	case !canEverStart:
		p.cleanupUnstartedPodLocked(status)
		return startExit
	case !canStart:
		if !p.mutants.Has(mutant.B14) { // mutant B14: the refused update is consumed and dropped
			status.setPending(work.options)
		}
		status.working = false
		return startWait
	}
	status.started, status.startedAt = true, p.rt.Now()
	status.mergeLastUpdate(work.options)
	return startRun
}

// runSyncWork is SPEC §1.8 steps 2 and 3, outside the pod lock: read the
// runtime status (not for runtime-only pods), then call the Syncer.
func (p *PodWorkers) runSyncWork(status *podSyncStatus, work podWork, lastSyncTime time.Time) syncResult {
	var podStatus *PodStatus
	if work.options.RunningPod == nil {
		var err error
		podStatus, err = p.cache.GetNewerThan(work.options.Pod.UID, lastSyncTime)
		if err != nil {
			return syncResult{err: err}
		}
	}
	var result syncResult
	switch work.workType {
	case TerminatedPodWork:
		result.err = p.syncer.SyncTerminatedPod(work.cancel, work.options.Pod, podStatus)
	case TerminatingPodWork:
		statusFn, grace := p.acknowledgeTerminating(status)
		if work.options.RunningPod != nil {
			result.err = p.syncer.SyncTerminatingRuntimePod(work.cancel, work.options.RunningPod)
		} else {
			result.err = p.syncer.SyncTerminatingPod(work.cancel, work.options.Pod, podStatus, grace, statusFn)
		}
	default:
		o := work.options
		result.isTerminal, result.err = p.syncer.SyncPod(work.cancel, o.UpdateType, o.Pod, o.MirrorPod, podStatus)
	}
	result.statusRead, result.syncedAt = true, p.rt.Now()
	return result
}

// acknowledgeTerminating takes the pod lock for acknowledgeTerminatingLocked.
func (p *PodWorkers) acknowledgeTerminating(status *podSyncStatus) (PodStatusFunc, int64) {
	p.podLock.Lock()
	defer p.podLock.Unlock()
	return p.acknowledgeTerminatingLocked(status)
}

// acknowledgeTerminatingLocked marks that the worker observed the
// termination request: from now on SyncPod is never called again (S4). It
// returns the last status function and the record's effective grace, which
// is never above the grace written into the consumed update (it only
// decreases) and is always ≥1.
func (p *PodWorkers) acknowledgeTerminatingLocked(status *podSyncStatus) (PodStatusFunc, int64) {
	if !status.terminationRequested && !p.noAssertions {
		panic(fmt.Sprintf("workers: acknowledgeTerminating: pod %s runs terminating work without a termination request", status.uid))
	}
	status.startedTerminating = true
	var statusFn PodStatusFunc
	if n := len(status.statusPostTerminating); n > 0 {
		statusFn = status.statusPostTerminating[n-1]
	}
	return statusFn, status.gracePeriod
}

// finishSyncWork takes the pod lock for finishSyncWorkLocked.
func (p *PodWorkers) finishSyncWork(status *podSyncStatus, work podWork, result syncResult) (exit bool) {
	p.podLock.Lock()
	defer p.podLock.Unlock()
	return p.finishSyncWorkLocked(status, work, result)
}

// finishSyncWorkLocked is SPEC §1.8 step 4 (the podWorkerLoop switch) and
// step 5: apply the outcome of a sync call and schedule the next one. It
// reports whether the worker goroutine must exit.
func (p *PodWorkers) finishSyncWorkLocked(status *podSyncStatus, work podWork, result syncResult) (exit bool) {
	if p.records.at(status.uid) != status && !p.noAssertions {
		panic(fmt.Sprintf("workers: finishSyncWork: record of pod %s vanished while its sync was in flight", status.uid))
	}
	status.inFlight = false
	phaseTransition := false
	switch {
	case errors.Is(result.err, ErrCanceled):
		// The sync honoured its cancellation; the update that cancelled it
		// is pending.
	case result.err != nil:
		// Retried through the work queue (or orphan driving).
	case work.workType == TerminatedPodWork:
		p.completeTerminatedLocked(status)
		return true
	case work.workType == TerminatingPodWork && work.options.RunningPod != nil:
		p.completeTerminatingRuntimePodLocked(status)
		return true
	case work.workType == TerminatingPodWork:
		p.completeTerminatingLocked(status)
		phaseTransition = true
	case result.isTerminal:
		p.completeSyncLocked(status)
		phaseTransition = true
	}
	p.completeWorkLocked(status, phaseTransition, result.err)
	return false
}
