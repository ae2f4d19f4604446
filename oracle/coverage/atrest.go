package coverage

import "github.com/podsim/podsim/history"

// AtRest reads the state of every pod the tracker knows, in order of
// first sight, from probe: the query answers with every worker at rest,
// as if each pod's worker released the pod lock now. It is for a target
// that records no lock releases (the real kubelet's pod workers, module
// realkubelet, whose driver cannot see the workers' critical sections and
// calls it between its steps): there the state field is sampled once a
// step, so a state a worker passed through within one step and left
// before the step ended is not seen. A pod's tuple is recorded only if it
// changed.
func (t *Tracker) AtRest(probe *history.Probe) {
	if probe == nil {
		return
	}
	for _, uid := range t.order {
		t.answered(uid, t.pods[uid], probe)
	}
}
