package realkubelet

import (
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/realkubelet/evictmgr"
)

// evictCycle is the Evict action with the real eviction manager
// (evictmgr): memory pressure comes on with a.UID using the most memory,
// and one turn of the manager's loop runs (synchronize, then the wait for
// the evicted pod's cleanup) over the active pods of now. Upstream's loop
// is serial, so while a turn still runs (its kill or its cleanup wait) the
// action does nothing. Which pod is evicted is the manager's choice: the
// first by its ranking (priority before use) that is not critical.
func (d *Driver) evictCycle(a plan.Action) {
	ac := d.actors
	if ac.evict == nil {
		m, err := evictmgr.New(d.ctx, ac.kills.KillPodFunc("eviction"))
		if err != nil {
			panic(err) // the pinned kubelet's manager no longer fits (evictmgr_test.go says how)
		}
		ac.evict = m
	}
	if ac.evict.Busy() {
		ac.evictBusy++
		return
	}
	active := d.activePods()
	ac.evict.Stats.Set(true, string(a.UID), active)
	ac.evict.Cycle(active, ac.cleanedUp, quietLogger())
	ac.evictRanked = append(ac.evictRanked, string(a.UID))
}

// cleanedUp is the kubelet's PodIsFinished (ShouldPodBeFinished) as of the
// last step's end: the manager's poll runs on its own ticker, which fires
// on a step boundary, so it reads the answers every step leaves
// (noteFinished) instead of racing the step's move.
func (a *actors) cleanedUp(p *v1.Pod) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.finished[p.UID]
}

// noteFinished keeps ShouldPodBeFinished of every UID for cleanedUp.
func (d *Driver) noteFinished() {
	if d.actors.evict == nil {
		return
	}
	answers := map[types.UID]bool{}
	for _, uid := range d.sortedUniverse() {
		answers[uid] = d.pw.ShouldPodBeFinished(uid)
	}
	d.actors.mu.Lock()
	d.actors.finished = answers
	d.actors.mu.Unlock()
}

// actorsIdle: no manager has work left (the shutdown's processing ended,
// no eviction turn runs).
func (a *actors) idle() bool {
	return (a.shutdown == nil || a.shutdownDone || a.shutdown.Done()) && (a.evict == nil || !a.evict.Busy())
}
