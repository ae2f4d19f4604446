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
	// terminatePodRan: TerminatePod ran for the UID (a SyncTerminatedPod
	// succeeded). terminatedEarlier: it ran for an earlier pod-workers
	// record of the UID, and none ran since: the record it ran for is
	// gone (SyncKnownPods purged it: recordGone) or a SyncTerminatingPod
	// of a later record began (began).
	terminatePodRan, terminatedEarlier map[types.UID]bool
	// classAt is the class a K2 or K3 finding about the note with that
	// sequence number gets.
	classAt map[int64]string
}

func newStatusEvidence() statusEvidence {
	return statusEvidence{terminatePodRan: map[types.UID]bool{}, terminatedEarlier: map[types.UID]bool{},
		classAt: map[int64]string{}}
}

// began follows the callbacks: a SyncTerminatingPod after TerminatePod is
// a later record terminating (the finished record never runs one again).
func (e *statusEvidence) began(uid types.UID, fn ops.SyncFn) {
	if fn == ops.SyncTerminatingPod && e.terminatePodRan[uid] {
		e.terminatedEarlier[uid] = true
	}
}

// restart: a kubelet restart's new status manager caches no podIsFinished,
// so no TerminatePod of the ended process backs GF any more (the classes
// found so far stay).
func (e *statusEvidence) restart() {
	clear(e.terminatePodRan)
	clear(e.terminatedEarlier)
}

// recordGone: the pod workers' record of uid is gone (purged); the next
// update of the UID makes a new record, a new incarnation. Marking it
// here, not at a later record's first callback, covers a new record that
// has begun none (held wake-ups: hold swarm seed 2,116).
func (e *statusEvidence) recordGone(uid types.UID) {
	if e.terminatePodRan[uid] {
		e.terminatedEarlier[uid] = true
	}
}

// terminated: TerminatePod ran for uid now (a new finished incarnation).
func (e *statusEvidence) terminated(uid types.UID) {
	e.terminatePodRan[uid] = true
	delete(e.terminatedEarlier, uid)
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
// earlier record of the pod workers and none ran in the current one: the
// status manager's podIsFinished is kept per UID once set
// (updateStatusInternal refuses to clear it), and canBeDeleted reads only
// the deletion timestamp, the API phase and that flag, so it deletes the
// object while the new record is still terminating (or has not begun).
// Whether the new record began SyncPod does not enter: the flag is the
// earlier record's either way (plain api-shapes seed 7,568). A
// TerminatePod of the current record (a planted early one) is not GF.
func (e *statusEvidence) classFinalDelete(uid types.UID) string {
	if e.terminatedEarlier[uid] {
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
