package actors

import (
	"fmt"
	"slices"
	"strings"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	kubetypes "k8s.io/kubernetes/pkg/kubelet/types"

	"github.com/podsim/podsim/realkubelet/evictmgr"
	"github.com/podsim/podsim/realkubelet/planted"
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
		kill := a.Kills.KillPodFunc("eviction")
		if a.plant == planted.EvictKeepsPhase {
			kill = keepPhase(kill)
		}
		if a.plant == planted.NoDisruption {
			kill = dropDisruption(kill)
		}
		if a.plant == planted.EvictGraceStretched {
			kill = stretchGrace(kill)
		}
		m, err := evictmgr.New(a.host.Context(), kill)
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
	a.Evict.Cycle(a.plantedView(active), a.cleanedUp, a.host.Logger())
	a.EvictRanked = append(a.EvictRanked, string(uid))
	a.evictActive = append(a.evictActive, active)
}

// EvictionMisses judges every finished turn (P6 on the real manager): the
// one hard memory threshold is met in every turn, so upstream's
// synchronize ranks the active pods and evicts the first that is not
// critical (kubetypes.IsCriticalPod: static, mirror, or of system-critical
// priority), one pod a turn. A turn whose active pods held one that is not
// critical must evict exactly one pod, one the ranking puts first
// (rankedFirst), and no turn may evict a critical one; and every
// eviction's kill is sent with evict and the hard threshold's grace of 1 s
// and marks the pod Failed, reason Evicted (evictionStatusWrong).
// Messages: the kills' in their order, then the turns'.
func (a *Actors) EvictionMisses() []string {
	if a.Evict == nil {
		return nil
	}
	out := slices.Clone(a.evictFnWrong)
	for i, evicted := range a.Evict.Evicted() {
		byUID := map[string]*v1.Pod{}
		var open []string
		for _, p := range a.evictActive[i] {
			byUID[string(p.UID)] = p
			if !kubetypes.IsCriticalPod(p) {
				open = append(open, string(p.UID))
			}
		}
		switch {
		case len(open) > 0 && len(evicted) != 1:
			out = append(out, fmt.Sprintf("eviction turn %d evicted [%s], want one of the active pods that are not critical: [%s]",
				i+1, strings.Join(evicted, " "), strings.Join(open, " ")))
		case slices.ContainsFunc(evicted, func(uid string) bool { p := byUID[uid]; return p == nil || kubetypes.IsCriticalPod(p) }):
			out = append(out, fmt.Sprintf("eviction turn %d evicted [%s]: a critical pod or one that was not active",
				i+1, strings.Join(evicted, " ")))
		case len(evicted) == 1:
			if first := rankedFirst(a.evictActive[i], a.EvictRanked[i]); !slices.Contains(first, evicted[0]) {
				out = append(out, fmt.Sprintf("eviction turn %d evicted %s, want one ranked first under memory pressure (the lowest priority, then the most memory): [%s]",
					i+1, evicted[0], strings.Join(first, " ")))
			}
		}
	}
	return out
}

// rankedFirst are the pods of active, not critical, that upstream's
// memory-pressure ranking puts first (rankMemoryPressure: every pod here
// exceeds its request, none having any, so the lowest priority, then the
// most memory used; first uses the most, evictmgr.WorkingSet): the
// pods a turn may evict, since its sort is not stable among equals.
func rankedFirst(active []*v1.Pod, first string) []string {
	var out []string
	var bestPrio int32
	var bestUse uint64
	for _, p := range active {
		if kubetypes.IsCriticalPod(p) {
			continue
		}
		var prio int32
		if p.Spec.Priority != nil {
			prio = *p.Spec.Priority
		}
		use := evictmgr.WorkingSet(first, string(p.UID))
		switch {
		case len(out) == 0 || prio < bestPrio || prio == bestPrio && use > bestUse:
			out, bestPrio, bestUse = []string{string(p.UID)}, prio, use
		case prio == bestPrio && use == bestUse:
			out = append(out, string(p.UID))
		}
	}
	return out
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

// plantedView is the active pods as a planted bug shows them to the
// manager (planted.EvictSeesNoPods, planted.EvictSeesNoPriority); else
// active itself.
func (a *Actors) plantedView(active []*v1.Pod) []*v1.Pod {
	switch {
	case a.plant == planted.EvictSeesNoPods:
		return nil
	case a.plant == planted.EvictSeesNoPriority:
		var out []*v1.Pod
		for _, p := range active {
			p = p.DeepCopy()
			p.Spec.Priority = nil
			out = append(out, p)
		}
		return out
	}
	return active
}

// evictionStatusWrong says what is wrong with an eviction kill's status
// function ("" for nothing): upstream's evictPod marks the pod Failed with
// reason Evicted, whatever its phase.
func evictionStatusWrong(fn func(*v1.PodStatus)) string {
	if fn == nil {
		return "is missing"
	}
	for _, from := range []v1.PodPhase{v1.PodPending, v1.PodRunning, v1.PodSucceeded, v1.PodFailed} {
		st := v1.PodStatus{Phase: from}
		fn(&st)
		if st.Phase != v1.PodFailed || st.Reason != "Evicted" {
			return fmt.Sprintf("turns phase %s into %q, reason %q (want Failed, Evicted)", from, st.Phase, st.Reason)
		}
	}
	return ""
}
