package status

import (
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/model/ops"
)

// The exact predicates of the status component's known upstream
// deviations (docs/upstream-findings.md, GF and GG). Both are judged at the
// status manager's write, from what the driver saw up to it; the kubelet
// oracle's finding names the note by its sequence number, and the class is
// given only if the predicate held for that very note.

// statusEvidence is what the predicates keep per UID.
type statusEvidence struct {
	// terminatedEarlier: TerminatePod ran for the UID (a SyncTerminatedPod
	// succeeded) and a SyncTerminatingPod of a later incarnation began
	// since; startedSince: a SyncPod began after that TerminatePod.
	terminatePodRan, terminatedEarlier, startedSince map[types.UID]bool
	// classAt is the class a K2 or K3 finding about the note with that
	// sequence number gets.
	classAt map[int64]string
}

func newStatusEvidence() statusEvidence {
	return statusEvidence{terminatePodRan: map[types.UID]bool{}, terminatedEarlier: map[types.UID]bool{},
		startedSince: map[types.UID]bool{}, classAt: map[int64]string{}}
}

// began follows the callbacks: a SyncTerminatingPod after TerminatePod is
// a later incarnation terminating; a SyncPod after it started containers.
func (e *statusEvidence) began(uid types.UID, fn ops.SyncFn) {
	switch {
	case fn == ops.SyncPod && e.terminatePodRan[uid]:
		e.startedSince[uid] = true
	case fn == ops.SyncTerminatingPod && e.terminatePodRan[uid]:
		e.terminatedEarlier[uid] = true
	}
}

// terminated: TerminatePod ran for uid now (a new finished incarnation).
func (e *statusEvidence) terminated(uid types.UID) {
	e.terminatePodRan[uid] = true
	delete(e.terminatedEarlier, uid)
	delete(e.startedSince, uid)
}

// classPhaseWritten is K2's: GG iff the write replaced a terminal API
// phase with another terminal one. The status manager defers a terminal
// phase while containers could run only on a transition from a
// non-terminal phase (mergePodStatus, "transitioningToTerminalPhase"), so
// a terminal phase someone else put into the API is overwritten at once.
func classPhaseWritten(from, to v1.PodPhase) string {
	if TerminalPhase(from) && TerminalPhase(to) {
		return "GG"
	}
	return ""
}

// classFinalDelete is K3's: GF iff TerminatePod ran for the UID in an
// earlier incarnation of the pod workers, the current incarnation is
// terminating (a SyncTerminatingPod of it began) and never started
// containers (no SyncPod since), and no TerminatePod ran in it: the status
// manager's podIsFinished is kept per UID once set (updateStatusInternal
// refuses to clear it), so it deletes the object while the new incarnation
// is still being torn down.
func (e *statusEvidence) classFinalDelete(uid types.UID) string {
	if e.terminatedEarlier[uid] && !e.startedSince[uid] {
		return "GF"
	}
	return ""
}

// TerminalPhase reports whether p is Succeeded or Failed.
func TerminalPhase(p v1.PodPhase) bool { return p == v1.PodSucceeded || p == v1.PodFailed }

// noteWrite records a status manager op as its note, with the class its
// finding would get.
func (s *Component) noteWrite(uid types.UID, n history.Note, class string) {
	s.host.Tape().Note(n)
	if class != "" {
		s.ev.classAt[s.host.Tape().Seq] = class
	}
}

// Class is the class of a kubelet oracle's finding: a K2's or K3's is the
// class its note got at the write; any other's is "".
func (s *Component) Class(v history.Violation) string {
	if v.Invariant == "K2" || v.Invariant == "K3" {
		return s.ev.classAt[v.Seq]
	}
	return ""
}
