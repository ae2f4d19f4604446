package scenarios

import (
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/podsim/podsim/model"
)

// The eviction manager (pkg/kubelet/eviction, SPEC §2): it evicts one pod
// at a time with killPodNow(evict=true) and then waits for the pod's
// cleanup before it considers evicting again.
const (
	// evictionCleanupTimeout and evictionCleanupPoll are the eviction
	// manager's podCleanupTimeout and podCleanupPollFreq.
	evictionCleanupTimeout = 30 * time.Second
	evictionCleanupPoll    = time.Second
)

// evict is the Evict action, in a goroutine of its own: only an active pod
// that is neither static nor critical is evicted; KillPodNow with
// evict=true, the action's grace override (0: an immediate eviction) and a
// status function that marks it Failed/Evicted; then waitForPodsCleanup
// polls ShouldPodBeFinished until it holds or the timeout passes.
func (w *World) evict(a Action) {
	p, epoch := w.pods[a.UID], w.epoch
	if p == nil || !p.inConfig || !p.admitted || p.action.Static || p.action.Priority >= CriticalPriority ||
		w.ask(model.IsPodKnownTerminated, a.UID) {
		w.mark(MarkEvictionSpared)
		return
	}
	a.Evict = true
	w.killPodNowWith(a, evictedStatus)
	for waited := time.Duration(0); waited <= evictionCleanupTimeout && w.epoch == epoch; waited += evictionCleanupPoll {
		if w.ask(model.ShouldPodBeFinished, a.UID) {
			w.mark(MarkEvictionCleanupWaited)
			return
		}
		w.S.Sleep(evictionCleanupPoll)
	}
}

// evictedStatus is the eviction manager's status function.
func evictedStatus(s *v1.PodStatus) {
	s.Phase, s.Reason, s.Message = v1.PodFailed, "Evicted", "The node was low on resource."
}
