package world

import (
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/model/ops"
	"github.com/podsim/podsim/plan"
)

// The eviction manager (pkg/kubelet/eviction, SPEC §2): it evicts one pod
// at a time with killPodNow(evict=true) and then waits for the pod's
// cleanup before it considers evicting again.
const (
	// EvictionCleanupTimeout and EvictionCleanupPoll are the eviction
	// manager's podCleanupTimeout and podCleanupPollFreq.
	EvictionCleanupTimeout = 30 * time.Second
	EvictionCleanupPoll    = time.Second
)

// evict is the Evict action, in a goroutine of its own: only an active pod
// that is neither static nor critical is evicted; KillPodNow with
// evict=true, the action's grace override (0: an immediate eviction) and a
// status function that marks it Failed/Evicted; then waitForPodsCleanup
// polls ShouldPodBeFinished until it holds or the timeout passes.
func (w *World) evict(a plan.Action) {
	p, epoch := w.pod(a.UID), w.epoch
	w.note(history.EvictionBegins{UID: a.UID})
	if p == nil || !p.inConfig || !p.admitted || p.action.Static || p.action.Priority >= plan.CriticalPriority ||
		w.ask(ops.IsPodKnownTerminated, a.UID) {
		w.mark(plan.MarkEvictionSpared)
		return
	}
	a.Evict = true
	w.killPodNowWith(a, EvictedStatus, epoch) // nothing, if the kubelet restarted while the manager looked
	for waited := time.Duration(0); waited <= EvictionCleanupTimeout && w.epoch == epoch; waited += EvictionCleanupPoll {
		if w.ask(ops.ShouldPodBeFinished, a.UID) {
			w.mark(plan.MarkEvictionCleanupWaited)
			return
		}
		w.S.Sleep(EvictionCleanupPoll)
	}
}

// EvictedStatus is the eviction manager's status function.
func EvictedStatus(s *v1.PodStatus) {
	s.Phase, s.Reason, s.Message = v1.PodFailed, "Evicted", "The node was low on resource."
}
