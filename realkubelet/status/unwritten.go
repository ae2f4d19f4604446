package status

import (
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/types"

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
	out := slices.Clone(s.freshMisses)
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

// judgeFresh is P5's other half, right after a pass (all: a full one):
// every pod given a new status version before it (fresh) and still in the
// API holds the phase the kubelet last set, since every pass, a triggered
// one too, syncs a status whose version is newer than the API's. The
// same exemption as Unwritten's, and one of upstream's: a status dropped
// as an orphan and set again since the last full pass (kstatus's Dropped:
// its version restarted below the API's, so only a full pass writes it).
// Its misses are reported with Unwritten's.
func (s *Component) judgeFresh(fresh []types.UID, all bool) {
	kind := "a triggered status pass"
	if all {
		kind = "a full status pass"
	}
	for _, uid := range fresh {
		a, asked := s.mgr.Asked(uid)
		pod, ok := s.api.ByUID(uid)
		switch {
		case !asked || !ok || pod.Status.Phase == a.Phase || s.mgr.Dropped(uid):
		case TerminalPhase(a.Phase) && s.host.Workers().CouldHaveRunningContainers(uid):
		default:
			s.freshMisses = append(s.freshMisses, fmt.Sprintf("pod %s: the kubelet set phase %s, but the API still holds %q right after %s",
				uid, a.Phase, pod.Status.Phase, kind))
		}
	}
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
