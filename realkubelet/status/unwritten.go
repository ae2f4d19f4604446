package status

import (
	"fmt"

	"github.com/podsim/podsim/realkubelet/apiserver"
)

// Unwritten is the status half of the settle phase's checks: the phase the
// kubelet last gave the status manager for a pod still in the API (by
// UID) is the API's once a full pass ran after it, and so is its
// readiness (kstatus/ready.go), which the manager's merge makes False
// under a terminal phase. Not owed: a terminal phase while the pod
// workers say containers could run (the manager withholds it, K2's rule).
// Messages in UID order.
func (s *Component) Unwritten() []string {
	var out []string
	for _, uid := range s.mgr.AskedUIDs() {
		a, _ := s.mgr.Asked(uid)
		pod, ok := s.api.ByUID(uid)
		switch {
		case !ok || a.FullPasses == s.mgr.FullPasses():
		case pod.Status.Phase == a.Phase:
			want := a.Ready && !TerminalPhase(a.Phase)
			if got := apiserver.ReadyTrue(pod.Status.Conditions); got != want {
				out = append(out, fmt.Sprintf("pod %s: the kubelet set phase %s %s, but the API holds it %s after %s",
					uid, a.Phase, readiness(want), readiness(got), passes(s.mgr.FullPasses()-a.FullPasses)))
			}
		case TerminalPhase(a.Phase) && s.host.Workers().CouldHaveRunningContainers(uid):
		default:
			out = append(out, fmt.Sprintf("pod %s: the kubelet set phase %s, but the API still holds %q after %s",
				uid, a.Phase, pod.Status.Phase, passes(s.mgr.FullPasses()-a.FullPasses)))
		}
	}
	return out
}

func readiness(ready bool) string {
	if ready {
		return "ready"
	}
	return "not ready"
}

// passes says how many full status passes.
func passes(n int) string {
	if n == 1 {
		return "a full status pass"
	}
	return fmt.Sprintf("%d full status passes", n)
}
