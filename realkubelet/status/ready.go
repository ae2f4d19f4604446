package status

import (
	"fmt"

	v1 "k8s.io/api/core/v1"

	"github.com/podsim/podsim/realkubelet/apiserver"
	"github.com/podsim/podsim/realkubelet/kstatus"
)

// K7: the status manager never writes a terminal phase with a Ready or
// ContainersReady condition True (upstream #108594, fixed by #110256 in
// the manager's merge; the statuses' readiness is kstatus/ready.go's).
// K8: a write that makes the API's phase terminal carries the
// DisruptionTarget condition the kubelet's status holds (an eviction's or
// a node shutdown's kill sets it; the merge sends it with the terminal
// phase and not before). Both are judged at every status write the
// manager makes, and the findings wait for the driver (Judged).

// judgeWrite records the K7 and K8 findings of op, a write of the status
// manager's pass.
func (s *Component) judgeWrite(op apiserver.Op) {
	if op.Verb != apiserver.PatchStatus && op.Verb != apiserver.UpdateStatus || !TerminalPhase(op.Phase) {
		return
	}
	if op.Ready {
		s.judged = append(s.judged, Judged{"K7",
			fmt.Sprintf("pod %s: the status manager wrote phase %s with the pod still Ready", op.UID, op.Phase)})
	}
	if !op.PhaseChanged || TerminalPhase(op.From) || op.Disrupted {
		return
	}
	if st, ok := s.mgr.GetPodStatus(op.UID); ok && apiserver.ConditionTrue(st.Conditions, v1.DisruptionTarget) {
		s.judged = append(s.judged, Judged{"K8",
			fmt.Sprintf("pod %s: the status manager wrote phase %s without the DisruptionTarget condition the kubelet set", op.UID, op.Phase)})
	}
}

// Judged is a finding of judgeWrite: its invariant and message.
type Judged struct{ Invariant, Message string }

// Judged returns the K7 and K8 findings since the last call, in the
// order of the writes.
func (s *Component) Judged() []Judged {
	out := s.judged
	s.judged = nil
	return out
}

// plantReady is the planted bug ReadyTerminal: a terminal status the
// manager writes is written again at once, by the manager's client, with
// both readiness conditions True, as a kubelet before #110256 could send
// it.
func (s *Component) plantReady(op apiserver.Op) {
	if op.Verb != apiserver.PatchStatus && op.Verb != apiserver.UpdateStatus || op.Ready || !TerminalPhase(op.Phase) {
		return
	}
	pod, ok := s.api.ByUID(op.UID)
	if !ok {
		return
	}
	pod.Status.Conditions = []v1.PodCondition{{Type: v1.ContainersReady, Status: v1.ConditionTrue},
		{Type: v1.PodReady, Status: v1.ConditionTrue}}
	if _, err := s.api.Update(kstatus.Actor, pod, true); err == nil {
		s.plants.Planted()
	}
}
