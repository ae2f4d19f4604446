package actors

import (
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/realkubelet/evictmgr"
)

// EvictCycle is the Evict action with the real eviction manager
// (evictmgr): memory pressure comes on with uid using the most memory,
// and one turn of the manager's loop runs (synchronize, then the wait for
// the evicted pod's cleanup) over the active pods of now. Upstream's loop
// is serial, so while a turn still runs (its kill or its cleanup wait) the
// action does nothing. Which pod is evicted is the manager's choice: the
// first by its ranking (priority before use) that is not critical.
func (a *Actors) EvictCycle(uid types.UID) {
	if a.Evict == nil {
		m, err := evictmgr.New(a.host.Context(), a.Kills.KillPodFunc("eviction"))
		if err != nil {
			panic(err) // the pinned kubelet's manager no longer fits (evictmgr_test.go says how)
		}
		a.Evict = m
	}
	if a.Evict.Busy() {
		a.EvictBusy++
		return
	}
	active := a.ActivePods()
	a.Evict.Stats.Set(true, string(uid), active)
	a.Evict.Cycle(active, a.cleanedUp, a.host.Logger())
	a.EvictRanked = append(a.EvictRanked, string(uid))
}

// cleanedUp is the kubelet's PodIsFinished (ShouldPodBeFinished) as of the
// last step's end: the manager's poll runs on its own ticker, which fires
// on a step boundary, so it reads the answers every step leaves
// (noteFinished) instead of racing the step's move.
func (a *Actors) cleanedUp(p *v1.Pod) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.finished[p.UID]
}

// noteFinished keeps ShouldPodBeFinished of every UID for cleanedUp.
func (a *Actors) noteFinished() {
	if a.Evict == nil {
		return
	}
	pw := a.host.Workers()
	answers := map[types.UID]bool{}
	for _, uid := range a.host.UIDs() {
		answers[uid] = pw.ShouldPodBeFinished(uid)
	}
	a.mu.Lock()
	a.finished = answers
	a.mu.Unlock()
}
