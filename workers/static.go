package workers

import (
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/workers/internal/mutant"
)

// allowPodStartLocked is the kubelet's allowPodStart (SPEC §1.10). Non-static
// pods always start. A static pod whose record is gone or whose termination
// was requested can never start (the worker exits through
// cleanupUnstartedPod, #107900); one refused by the full-name exclusion
// cannot start yet and is put on the work queue with the error backoff.
func (p *PodWorkers) allowPodStartLocked(pod *v1.Pod) (canStart, canEverStart bool) {
	if !isStaticPod(pod) || p.mutants.Has(mutant.B7) { // mutant B7: no full-name exclusion
		return true, true
	}
	status, ok := p.records.get(pod.UID)
	if !ok || status.terminationRequested {
		return false, p.mutants.Has(mutant.B8) // mutant B8: a killed waiter "cannot start yet"
	}
	if !p.allowStaticPodStartLocked(status.fullname, pod.UID) {
		p.queue.Enqueue(pod.UID, p.jitter(p.backoffPeriod))
		return false, true
	}
	return true, true
}

// allowStaticPodStartLocked is the kubelet's allowStaticPodStart: at most one
// static UID runs per full name (#97722, #104743), and waiters start in
// arrival order. Waiters that are gone, terminating or terminated are
// skipped (#107733, #107900) and the skipped prefix is trimmed; a refused
// UID keeps its place.
func (p *PodWorkers) allowStaticPodStartLocked(fullname string, uid types.UID) bool {
	if startedUID, started := p.startedStaticPodsByFullname[fullname]; started {
		return startedUID == uid
	}
	waiting := p.waitingToStartStaticPodsByFullname[fullname]
	for i, waitingUID := range waiting {
		status, ok := p.records.get(waitingUID)
		// mutant B8: a killed waiter keeps its place at the head of the list.
		if !ok || ((status.terminationRequested || status.terminated) && !p.mutants.Has(mutant.B8)) {
			continue
		}
		if waitingUID != uid {
			p.waitingToStartStaticPodsByFullname[fullname] = waiting[i:]
			return false
		}
		waiting = waiting[i+1:]
		break
	}
	if len(waiting) == 0 {
		delete(p.waitingToStartStaticPodsByFullname, fullname)
	} else {
		p.waitingToStartStaticPodsByFullname[fullname] = waiting
	}
	p.startedStaticPodsByFullname[fullname] = uid
	return true
}

// IsPodForMirrorPodTerminatingByFullName reports whether the static pod that
// holds podFullName is terminating (state TR or T): housekeeping then keeps
// its orphaned mirror pod in the API until it is done.
func (p *PodWorkers) IsPodForMirrorPodTerminatingByFullName(podFullName string) bool {
	p.podLock.Lock()
	defer p.podLock.Unlock()
	return p.MirrorTerminatingLocked(podFullName)
}

// MirrorTerminatingLocked is IsPodForMirrorPodTerminatingByFullName for a
// caller that holds the pod lock.
func (p *PodWorkers) MirrorTerminatingLocked(podFullName string) bool {
	uid, started := p.startedStaticPodsByFullname[podFullName]
	if !started {
		return false
	}
	status, ok := p.records.get(uid)
	return ok && status.terminationRequested && !status.terminated
}
