package actors

import (
	"fmt"
	"slices"

	v1 "k8s.io/api/core/v1"
	"k8s.io/kubernetes/pkg/kubelet/eviction"

	"github.com/podsim/podsim/realkubelet/killgate"
)

// The first half of K8 (spec.md): a kill by the eviction manager or the
// node shutdown manager carries a status function that sets the
// DisruptionTarget condition True, reason TerminationByKubelet, as
// upstream's evictPod (for the memory threshold these runs meet) and the
// node shutdown manager do. The second half, that the status manager
// writes it with the terminal phase, is the status component's.

// judgeDisruption records what is wrong with kill request r's status
// function, if it is an eviction's or a node shutdown's. A missing
// function is the other checks' (P6, K5).
func (a *Actors) judgeDisruption(r *killgate.Request) {
	if r.Actor != "shutdown" && r.Actor != "eviction" {
		return
	}
	fn := r.Opts.KillPodOptions.PodStatusFunc
	if fn == nil {
		return
	}
	st := v1.PodStatus{Phase: v1.PodRunning}
	fn(&st)
	for _, c := range st.Conditions {
		if c.Type == v1.DisruptionTarget && c.Status == v1.ConditionTrue && c.Reason == v1.PodReasonTerminationByKubelet {
			return
		}
	}
	a.disruptionWrong = append(a.disruptionWrong,
		fmt.Sprintf("the %s kill of pod %s has a status function that sets no DisruptionTarget (True, %s)", r.Actor, r.UID, v1.PodReasonTerminationByKubelet))
}

// DisruptionMisses are the K8 findings of the kills so far, in their order.
func (a *Actors) DisruptionMisses() []string { return slices.Clone(a.disruptionWrong) }

// dropDisruption is kill with a status function that removes the
// DisruptionTarget condition the manager's function set
// (planted.NoDisruption).
func dropDisruption(kill eviction.KillPodFunc) eviction.KillPodFunc {
	return func(pod *v1.Pod, evict bool, grace *int64, fn func(*v1.PodStatus)) error {
		return kill(pod, evict, grace, func(s *v1.PodStatus) {
			fn(s)
			s.Conditions = slices.DeleteFunc(s.Conditions, func(c v1.PodCondition) bool { return c.Type == v1.DisruptionTarget })
		})
	}
}
