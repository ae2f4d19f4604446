package workers

import (
	"strings"
	"time"

	"github.com/podsim/podsim/workers/internal/mutant"
)

// completeSyncLocked is the kubelet's completeSync: SyncPod reported natural
// completion (isTerminal), so the pod terminates without any external update
// (TestTerminalPhaseTransition). Termination request and acknowledgement
// happen together because no SyncPod is in flight. The grace comes from the
// last pod (no override), so that every SyncTerminatingPod gets one ≥1.
func (p *PodWorkers) completeSyncLocked(status *podSyncStatus) {
	if !status.terminationRequested {
		status.terminationRequested, status.terminatingAt = true, p.rt.Now()
		status.gracePeriod, _ = calculateEffectiveGracePeriod(status, status.knownPod(), nil)
	}
	status.startedTerminating = true
	p.requeueLastPodUpdateLocked(status)
}

// completeTerminatingLocked is the kubelet's completeTerminating: no
// container runs any more, so every kill waiting for it is complete. The
// started static-pod entry is kept until the pod finishes (#113091).
func (p *PodWorkers) completeTerminatingLocked(status *podSyncStatus) {
	status.terminated, status.terminatedAt = true, p.rt.Now()
	p.fireKillCompletionsLocked(status)
	p.requeueLastPodUpdateLocked(status)
}

// completeTerminatedLocked is the kubelet's completeTerminated: the pod is
// finished, its worker exits, and the record stays until SyncKnownPods
// purges it.
func (p *PodWorkers) completeTerminatedLocked(status *podSyncStatus) {
	p.finishRecordLocked(status)
}

// completeTerminatingRuntimePodLocked is the kubelet's
// completeTerminatingRuntimePod: a runtime-only pod is not a real pod, so no
// history is kept once it is killed (#113145): a stale runtime kill must not
// pin a record that blocks a static-pod restart. Any completion Event it
// carried fires (a finalisation path like the others, G1/G2).
func (p *PodWorkers) completeTerminatingRuntimePodLocked(status *podSyncStatus) {
	status.terminated, status.terminatedAt = true, p.rt.Now()
	p.finishRecordLocked(status)
	p.records.remove(status.uid)
	p.recordsChangedLocked()
}

// cleanupUnstartedPodLocked is the kubelet's cleanupUnstartedPod: a pod
// whose termination was requested before it could start (a static pod that
// waited for its full name) finishes without any sync call.
//
// G2 (SPEC §1.17-2): upstream never closes the kills' CompletedCh here;
// finishRecordLocked fires them.
// G3 (SPEC §1.17-3): upstream leaves startedTerminating false, so
// ShouldPodContainersBeTerminating=false while ShouldPodRuntimeBeRemoved=
// true; setting it keeps KnownTerminated ⇒ ContainersBeTerminating (S9).
func (p *PodWorkers) cleanupUnstartedPodLocked(status *podSyncStatus) {
	if !status.terminated {
		status.terminated, status.terminatedAt = true, p.rt.Now()
	}
	status.startedTerminating = status.startedTerminating || !p.mutants.Has(mutant.G3) // mutant G3: not acknowledged
	if p.mutants.Has(mutant.G2) {                                                      // mutant G2: kills never completed
		status.notifyPostTerminating = nil
	}
	p.finishRecordLocked(status)
}

// finishRecordLocked is what every finalisation shares: the worker's signal
// closes, the record is finished and idle, every completion Event still
// outstanding fires, and the UID gives up its static full name.
func (p *PodWorkers) finishRecordLocked(status *podSyncStatus) {
	p.closeUpdatesLocked(status)
	status.finished = true
	status.working = false
	// A finished record never consumes another update.
	status.pendingUpdate = nil
	p.fireKillCompletionsLocked(status)
	p.releaseStaticPodLocked(status)
}

// fireKillCompletionsLocked fires every kill's completion Event once and
// forgets the kills' status functions.
func (p *PodWorkers) fireKillCompletionsLocked(status *podSyncStatus) {
	for _, completed := range status.notifyPostTerminating {
		fireOnce(completed)
	}
	status.notifyPostTerminating = nil
	status.statusPostTerminating = nil
}

// releaseStaticPodLocked clears the started entry of the record's full name
// if this UID holds it, letting the next waiter start.
func (p *PodWorkers) releaseStaticPodLocked(status *podSyncStatus) {
	if uid, ok := p.startedStaticPodsByFullname[status.fullname]; ok && uid == status.uid {
		delete(p.startedStaticPodsByFullname, status.fullname)
	}
}

// requeueLastPodUpdateLocked is the kubelet's requeueLastPodUpdate: when the
// worker needs another pass by itself (phase transition, orphan driving) it
// replays the last consumed update, unless an update is already pending or
// none was ever consumed.
func (p *PodWorkers) requeueLastPodUpdateLocked(status *podSyncStatus) {
	if status.pendingUpdate != nil || status.activeUpdate == nil {
		return
	}
	status.setPending(*status.activeUpdate)
	status.working = true
	p.notifyLocked(status)
}

// completeWorkLocked is SPEC §1.8 step 5: request the next re-sync from the
// kubelet, then wake the worker again if an update is pending (no lost
// wake-up) or mark it idle.
func (p *PodWorkers) completeWorkLocked(status *podSyncStatus, phaseTransition bool, syncErr error) {
	p.queue.Enqueue(status.uid, p.requeueDelay(phaseTransition, syncErr))
	if status.pendingUpdate != nil {
		p.notifyLocked(status)
		return
	}
	status.working = false
}

// requeueDelay is the delay of the next re-sync (TestCompleteWork_Enqueue): 0
// after a phase transition; the jittered resync interval after success; a
// jittered second if the network is not ready; else the jittered error
// backoff.
func (p *PodWorkers) requeueDelay(phaseTransition bool, syncErr error) time.Duration {
	switch {
	case phaseTransition:
		return 0
	case syncErr == nil:
		return p.jitter(p.resyncInterval)
	case isNetworkNotReady(syncErr):
		return p.jitter(transientErrorBackoff)
	}
	return p.jitter(p.errorBackoff(syncErr))
}

// errorBackoff is the backoff period, or the time until the earliest
// BackoffError expiry in the error tree, never negative and never beyond the
// resync interval.
func (p *PodWorkers) errorBackoff(syncErr error) time.Duration {
	expiry, ok := earliestBackoffExpiry(syncErr)
	if !ok {
		return p.backoffPeriod
	}
	return min(max(expiry.Sub(p.rt.Now()), 0), p.resyncInterval)
}

// jitter is the kubelet's wait.Jitter(d, 0.5): a duration in [d, 1.5 d],
// drawn with millisecond resolution through Runtime.Intn so that the draw is
// part of the seeded schedule.
func (p *PodWorkers) jitter(d time.Duration) time.Duration {
	maxExtra := int((d / 2) / time.Millisecond)
	if maxExtra <= 0 {
		return d
	}
	return d + time.Duration(p.rt.Intn(maxExtra+1))*time.Millisecond
}

// isNetworkNotReady reports the kubelet's NetworkNotReadyErrorMsg anywhere in
// the error, aggregates included.
func isNetworkNotReady(err error) bool {
	found := false
	walkErrors(err, func(e error) {
		found = found || strings.Contains(e.Error(), networkNotReadyMessage)
	})
	return found
}
