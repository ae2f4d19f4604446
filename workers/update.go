package workers

import (
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/workers/internal/mutant"
)

// updateTarget is an UpdatePod call after input normalisation: the UID, the
// pod used for the transition checks (a synthetic one while only a runtime
// pod is known) and whether the update came from the runtime (a RunningPod
// kill). fromRuntime stays true when the kill is rewritten onto a known pod
// spec: such a kill still marks the pod deleted and is still ignored by a
// terminated pod, as upstream's isRuntimePod.
type updateTarget struct {
	uid         types.UID
	pod         *v1.Pod
	fromRuntime bool
}

// UpdatePod hands an update to the pod's worker, creating the record and the
// worker on first sight. It never blocks on a sync: the update waits in the
// record's single pending slot (latest wins) and the worker is woken. The
// decision procedure is SPEC §1.4 step by step; the resulting state machine
// is the table of §1.5. It panics if neither Pod nor RunningPod is set.
func (p *PodWorkers) UpdatePod(options UpdatePodOptions) {
	p.podLock.Lock()
	defer p.podLock.Unlock()
	p.updatePodLocked(options)
}

func (p *PodWorkers) updatePodLocked(options UpdatePodOptions) {
	target, accepted := normalizeUpdate(&options)
	if p.stopped {
		// No worker runs after Shutdown: the update, kill included, is not
		// performed, so a kill-and-wait times out.
		return
	}
	if !accepted {
		// §1.4 step 1: a non-kill runtime update creates no record.
		p.settleUnappliedKillLocked(p.records.at(target.uid), options.KillPodOptions)
		return
	}
	status, firstTime := p.recordForUpdateLocked(target)
	if target.fromRuntime {
		observeRuntimePod(status, &target, &options)
	}
	if p.dropRestartLocked(status, firstTime, options) || p.dropFinishedLocked(status, options) {
		return
	}
	becameTerminating := p.requestTerminationForUpdateLocked(status, target, options)
	shortened, keep := p.applyKillOptionsLocked(status, target, &options)
	if !keep {
		return
	}
	p.ensureWorkerLocked(status, target.pod)
	p.queuePendingUpdateLocked(status, options)
	if becameTerminating || shortened {
		p.cancelSyncLocked(status)
	}
}

// normalizeUpdate is §1.4 step 1. A runtime pod only counts when Pod is nil,
// and then only a kill is accepted.
func normalizeUpdate(options *UpdatePodOptions) (updateTarget, bool) {
	switch {
	case options.Pod != nil:
		options.RunningPod = nil
		return updateTarget{uid: options.Pod.UID, pod: options.Pod}, true
	case options.RunningPod != nil:
		target := updateTarget{
			uid:         options.RunningPod.ID,
			pod:         runtimePodToAPIPod(options.RunningPod),
			fromRuntime: true,
		}
		return target, options.UpdateType == SyncPodKill
	}
	panic("workers: UpdatePod: neither Pod nor RunningPod is set")
}

// newRecordLocked is memory for a new record: one that a run before
// Renew had (made is every record made in this memory, used how many of
// them this run has), else a new one. A record of this run is never handed
// out again: a purged record's worker may still read it. The caller
// writes the whole record.
func (p *PodWorkers) newRecordLocked() *podSyncStatus {
	if p.used == len(p.made) {
		s := new(podSyncStatus)
		s.run = func() { p.podWorkerLoop(s, s.runUpdates) } // made once for this memory (ensureWorkerLocked)
		p.made = append(p.made, s)
	}
	p.used++
	return p.made[p.used-1]
}

// recordForUpdateLocked is §1.4 step 2: it returns the UID's record,
// creating it on first sight.
func (p *PodWorkers) recordForUpdateLocked(target updateTarget) (*podSyncStatus, bool) {
	if status, ok := p.records.get(target.uid); ok {
		return status, false
	}
	status := p.newRecordLocked()
	*status = podSyncStatus{
		uid:      target.uid,
		fullname: p.names.fullName(target.pod),
		syncedAt: p.rt.Now(),
		run:      status.run,
	}
	if !target.fromRuntime && p.isTerminalAndRuntimeIdleLocked(target.pod) {
		p.startAsTerminatedLocked(status, target.pod)
	}
	p.records.set(target.uid, status)
	p.recordsChangedLocked()
	return status, true
}

// isTerminalAndRuntimeIdleLocked decides the kubelet-restart shortcut
// (§1.13): a pod first seen in a terminal API phase whose runtime cache
// shows nothing running already went through SyncTerminatingPod before the
// restart. A cache error means "unknown", so the pod terminates normally.
func (p *PodWorkers) isTerminalAndRuntimeIdleLocked(pod *v1.Pod) bool {
	if !isTerminalPhase(pod) {
		return false
	}
	status, err := p.cache.Get(pod.UID)
	return err == nil && status.IsIdle()
}

// startAsTerminatedLocked puts a new record straight into state D (not
// finished), so that only SyncTerminatedPod runs (#105527, #117019; before
// #116925 the record was created finished and cleanup never ran).
func (p *PodWorkers) startAsTerminatedLocked(status *podSyncStatus, pod *v1.Pod) {
	now := p.rt.Now()
	status.terminationRequested, status.terminatingAt = true, now
	status.startedTerminating = true
	status.terminated, status.terminatedAt = true, now
	status.gracePeriod, _ = calculateEffectiveGracePeriod(status, pod, nil)
}

// observeRuntimePod is §1.4 step 3: a runtime kill for a UID whose real pod
// spec is known becomes an ordinary kill of that pod; either way the worker
// must now drive the UID to completion.
func observeRuntimePod(status *podSyncStatus, target *updateTarget, options *UpdatePodOptions) {
	status.observedRuntime = true
	if pod := status.knownPod(); pod != nil {
		options.Pod, options.RunningPod = pod, nil
		target.pod = pod
	}
}

// dropRestartLocked is §1.4 step 4 (UID reuse, #104648/#104847): a create
// for a UID already terminating is dropped and remembered, so that
// SyncKnownPods purges the finished record and housekeeping re-creates the
// pod. A first sight (kubelet restart) is never a reuse.
func (p *PodWorkers) dropRestartLocked(status *podSyncStatus, firstTime bool, options UpdatePodOptions) bool {
	// mutant B6: without restartRequested a reused UID is never purged, so never restarted.
	if firstTime || !status.terminationRequested || options.UpdateType != SyncPodCreate || p.mutants.Has(mutant.B6) {
		return false
	}
	status.restartRequested = true
	p.settleUnappliedKillLocked(status, options.KillPodOptions)
	return true
}

// dropFinishedLocked is §1.4 step 5: a finished UID accepts no update until
// it is purged.
//
// G1 (SPEC §1.17-1): upstream returns here without closing CompletedCh, so a
// killPodNow racing with completion waits for its whole timeout. The pod is
// terminated, so the kill is complete: its Event fires at once.
func (p *PodWorkers) dropFinishedLocked(status *podSyncStatus, options UpdatePodOptions) bool {
	if !status.finished {
		return false
	}
	if !p.mutants.Has(mutant.G1) { // mutant G1: a kill of a finished pod never completes
		p.settleUnappliedKillLocked(status, options.KillPodOptions)
	}
	return true
}

// requestTerminationForUpdateLocked is §1.4 step 6: the first matching rule
// starts termination. It reports whether this update did.
func (p *PodWorkers) requestTerminationForUpdateLocked(status *podSyncStatus, target updateTarget, options UpdatePodOptions) bool {
	if status.terminationRequested {
		return false
	}
	switch {
	case target.fromRuntime, target.pod.DeletionTimestamp != nil:
		status.deleted = true
	case isTerminalPhase(target.pod):
	case options.UpdateType == SyncPodKill:
		status.evicted = options.KillPodOptions != nil && options.KillPodOptions.Evict
	default:
		return false
	}
	status.terminationRequested, status.terminatingAt = true, p.rt.Now()
	return true
}

// applyKillOptionsLocked is §1.4 step 7. It reports whether the effective
// grace period was shortened and whether the update is still to be queued.
func (p *PodWorkers) applyKillOptionsLocked(status *podSyncStatus, target updateTarget, options *UpdatePodOptions) (shortened, keep bool) {
	switch {
	case status.terminated:
		// The kill is already complete. A runtime-only kill comes from a
		// stale runtime cache and must not re-drive a terminated pod
		// (#103625, #103668); any other update re-drives SyncTerminatedPod
		// with the newest pod.
		fireKillCompletion(options.KillPodOptions)
		options.KillPodOptions = nil
		return false, !target.fromRuntime || p.mutants.Has(mutant.B3) // mutant B3: stale runtime kill re-drives D
	case status.terminationRequested:
		kill := KillPodOptions{}
		if options.KillPodOptions != nil {
			kill = *options.KillPodOptions
		}
		if kill.CompletedCh != nil {
			status.notifyPostTerminating = append(status.notifyPostTerminating, kill.CompletedCh)
		}
		if kill.PodStatusFunc != nil {
			status.statusPostTerminating = append(status.statusPostTerminating, kill.PodStatusFunc)
		}
		gracePod, graceKill := target.pod, options.KillPodOptions
		if p.mutants.Has(mutant.B12) { // mutant B12: an explicit 0 falls through to the spec grace
			gracePod, graceKill = zeroGraceIsUnset(gracePod, graceKill)
		}
		grace, wasShortened := calculateEffectiveGracePeriod(status, gracePod, graceKill)
		status.gracePeriod = grace
		// The record's lists own the Event and the status function; the
		// queued update carries only the effective grace, never nil.
		// The options and their grace in one allocation, each the update's own.
		queued := &struct {
			kill  KillPodOptions
			grace int64
		}{kill: kill, grace: grace}
		queued.kill.CompletedCh, queued.kill.PodStatusFunc = nil, nil
		queued.kill.PodTerminationGracePeriodSecondsOverride = &queued.grace
		options.KillPodOptions = &queued.kill
		shortened = wasShortened
	default:
		// Kill options mean nothing to a pod that is not terminating.
		fireKillCompletion(options.KillPodOptions)
		options.KillPodOptions = nil
	}
	return shortened, true
}

// ensureWorkerLocked is §1.4 step 8: the first accepted update of a record
// creates its wake-up signal and its worker goroutine; a static pod joins
// the wait list of its full name in arrival order.
func (p *PodWorkers) ensureWorkerLocked(status *podSyncStatus, pod *v1.Pod) {
	if status.updates != nil {
		return
	}
	updates := p.rt.NewSignal(p.names.updates(status.uid))
	status.updates = updates
	if isStaticPod(pod) {
		waiting := p.waitingToStartStaticPodsByFullname[status.fullname]
		p.waitingToStartStaticPodsByFullname[status.fullname] = append(waiting, status.uid)
	}
	if status.run != nil && status.runUpdates == nil { // the record's first worker: the loop made with its memory
		status.runUpdates = updates
		p.rt.Go(p.workerNameLocked(status.uid), status.run)
		return
	}
	p.rt.Go(p.workerNameLocked(status.uid), func() { p.podWorkerLoop(status, updates) })
}

// queuePendingUpdateLocked is §1.4 step 9: the update replaces the pending
// one (keeping the oldest StartTime) and the worker is woken.
func (p *PodWorkers) queuePendingUpdateLocked(status *podSyncStatus, options UpdatePodOptions) {
	if pending := status.pendingUpdate; pending != nil && !pending.StartTime.IsZero() && pending.StartTime.Before(options.StartTime) {
		options.StartTime = pending.StartTime
	}
	status.setPending(options)
	status.working = true
	p.notifyLocked(status)
}

// cancelSyncLocked is §1.4 step 10 and §1.15: fire the cancellation Event of
// the current sync context, if there is one and it has not fired yet.
func (p *PodWorkers) cancelSyncLocked(status *podSyncStatus) {
	if status.cancel != nil && !status.cancelFired {
		status.cancel.Fire()
		status.cancelFired = true
	}
}

// settleUnappliedKillLocked handles the completion Event of an update that
// is dropped: while the pod is terminating the Event joins the record's
// list and fires on termination; otherwise the kill cannot apply and it
// fires at once. So no completion Event is ever forgotten (S14, L6).
func (p *PodWorkers) settleUnappliedKillLocked(status *podSyncStatus, kill *KillPodOptions) {
	if kill == nil || kill.CompletedCh == nil {
		return
	}
	if status != nil && status.terminationRequested && !status.terminated {
		status.notifyPostTerminating = append(status.notifyPostTerminating, kill.CompletedCh)
		return
	}
	fireOnce(kill.CompletedCh)
}

// fireKillCompletion fires the completion Event of kill options that cannot
// apply (pod not terminating, or already terminated).
func fireKillCompletion(kill *KillPodOptions) {
	if kill != nil {
		fireOnce(kill.CompletedCh)
	}
}

// workerNameLocked names the next worker goroutine of uid: worker/<uid> for
// the first, worker/<uid>#<n> for the n-th (after purges), so traces and
// recorders can tell a reused UID's new worker from its exiting old one.
func (p *PodWorkers) workerNameLocked(uid types.UID) string {
	n := p.workerGenerations[uid] + 1
	p.workerGenerations[uid] = n
	return p.names.worker(uid, n)
}
