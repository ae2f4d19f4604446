// Package explain is the real virtual-kubelet target's classifier: it
// explains a finding of a run by a known upstream deviation of the
// PodController (VA–VP, docs/upstream-findings.md) or leaves it
// unexplained. It is pure: it reads only the Facts the world recorded
// while the run went (Evidence), the world's controller generations, and
// the end state, and imports no world.
package explain

import (
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/realvk/callgate"
)

// Namespace is the namespace of every pod of the runs.
const Namespace = "default"

// Facts is everything the classifier reads. The world writes the Evidence
// as the run goes and owns the rest, which it also drives by (Gen,
// WatchFrom and Ready: the world's own fields, so that there is one copy
// of each); the driver puts them together, with the world's lock held, to
// classify a finding.
type Facts struct {
	*Evidence
	// Gen is the last controller generation (0: never started).
	Gen int
	// WatchFrom[gen] is the API log index generation gen's watch starts
	// at (VD: whether gen's informer had listed before a removal).
	WatchFrom map[int]int
	// Ready: the generations whose Ready closed (VE).
	Ready map[int]bool
	// End is the state at the end (nil before the run settled: a finding
	// about a pod is then not explained).
	End *End
}

// End is the final state by object name.
type End struct {
	APIByName, ProviderByName map[string]types.UID
	APIPhase                  map[types.UID]v1.PodPhase
	APIVersion                map[types.UID]int
}

// Evidence is what the world records for the classifier as the run goes.
type Evidence struct {
	// DeleteCaller is, per UID, the node-package function of the
	// controller's last API delete that could remove it (no UID
	// precondition, or its own): VB; a pod the controller deleted is none
	// of VC, VH, VL, VO for VK3.
	DeleteCaller map[types.UID]string
	// DeletingNotified: the provider notified U with a deletion
	// timestamp; StatusInsteadOfDelete: after that, updatePodStatus wrote
	// U's status (it does so instead of the delete when the informer's
	// status differs from the provider's). VH reads the first, VC the
	// second.
	DeletingNotified, StatusInsteadOfDelete map[types.UID]bool
	// RemovedGen is, per UID, the controller generation current when the
	// API removed it, and RemovedAt the removal's place in the API's
	// events (VD: WatchFrom says whether that generation's informer had
	// listed before it).
	RemovedGen, RemovedAt map[types.UID]int
	// DanglingCalls are deleteDanglingPods' provider calls (VD, VI).
	DanglingCalls []DanglingCall
	// LastStatusWrite is, per key, the controller's last status write to
	// an object of that name; StatusRuns counts, per key, the status
	// queue's handler runs begun; StatusQueueLeft and OtherQueuesLeft are
	// what the status queue and the two other queues held once the run
	// settled (VJ).
	LastStatusWrite                  map[string]StatusAttempt
	StatusRuns                       map[string]int
	StatusQueueLeft, OtherQueuesLeft int
	// Edits is, per UID, the last outside edit of its status (VL, VO).
	Edits map[types.UID]Edit
	// LastCleanup is, per key, syncPodFromKubernetesHandler's last
	// provider call for it (VI; VD: one of the last generation's, or one
	// answered not-found, rules VD out).
	LastCleanup map[string]CleanupCall
	// DeletedWhileRunning: the controller's API delete of U (by caller)
	// came while the provider still ran U (VF).
	DeletedWhileRunning map[types.UID]string
	// Notifies are the notify moves by number (VL, VM, VN, VO, VP).
	Notifies map[int]Notify
	// LastUpdateEvent is, per generation and UID, the status order (the
	// world's statusSeq) of the last update event run in that
	// generation's handler (VN).
	LastUpdateEvent map[GenUID]int
	// DeleteEvents are the informer's delete events of pods run in the
	// handlers, in order (VP).
	DeleteEvents []DeleteEvent
	// StatusWrites are, per UID, the controller's status writes that took
	// effect, in order (VG, VL, VM, VN, VO, VP).
	StatusWrites map[types.UID][]StatusWrite
	// PodsGiven[gen] maps the pods generation gen's GetPods returned
	// (pointer, as %p prints it) to their keys (VD: whether gen's sweep
	// listed a key; the world reads it back to name the pod a
	// deleteDanglingPod span is about).
	PodsGiven map[int]map[string]string
	// SweepHeld[gen] is, per key generation gen's GetPods listed, the UID
	// its lister held under the key's name when GetPods returned, which is
	// what deleteDanglingPods then compares by name alone (VD: a sweep that
	// skipped another UID).
	SweepHeld map[int]map[string]types.UID
	// Cancelled: the generations whose context was cancelled; DoneErr is
	// each generation's Err once Done closed (VE).
	Cancelled map[int]bool
	DoneErr   map[int]string
}

// NewEvidence is an Evidence with every map made.
func NewEvidence() *Evidence {
	return &Evidence{DeleteCaller: map[types.UID]string{}, DeletingNotified: map[types.UID]bool{},
		StatusInsteadOfDelete: map[types.UID]bool{}, RemovedGen: map[types.UID]int{}, RemovedAt: map[types.UID]int{},
		LastStatusWrite: map[string]StatusAttempt{}, StatusRuns: map[string]int{}, Edits: map[types.UID]Edit{},
		LastCleanup: map[string]CleanupCall{}, DeletedWhileRunning: map[types.UID]string{}, Notifies: map[int]Notify{},
		LastUpdateEvent: map[GenUID]int{}, StatusWrites: map[types.UID][]StatusWrite{},
		PodsGiven: map[int]map[string]string{}, SweepHeld: map[int]map[string]types.UID{},
		Cancelled: map[int]bool{}, DoneErr: map[int]string{}}
}

// StatusWrite is one status write of the controller that took effect:
// the node-package function that made it and the provider status version
// it carried (0: none, e.g. handleProviderError's message).
type StatusWrite struct {
	Caller  string
	Version int
	// Seq orders it among the accepted notifications (the world's
	// statusSeq).
	Seq int
}

// StatusAttempt is one status write of the controller that reached the
// API server model: its caller, the UID of the status it carried, the UID
// of the API object of that name then, whether it was a Conflict, the
// status handler's run of the key it came in (StatusRuns: an attempt of
// an earlier run than the key's last was not what the key's last run
// did), and the controller generation that made it.
type StatusAttempt struct {
	Caller      string
	UID, APIUID types.UID
	Conflict    bool
	Run, Gen    int
}

// Edit places an outside edit of a pod's status among the status writes
// (statusSeq then) and the notify moves (notifySeq then).
type Edit struct{ StatusSeq, NotifySeq int }

// Notify is one notify move: the generation whose callback it called,
// the pod's UID and status version, and why enqueuePodStatusUpdate
// dropped it ("" if it did not: its poll ended before the pod was
// tracked, by its timeout or the generation's context, or the informer's
// lister did not have the pod).
type Notify struct {
	Gen     int
	UID     types.UID
	Version int
	// Deleting: the provider's pod carried a deletion timestamp.
	Deleting bool
	Dropped  string
	// Accepted orders the notifications not dropped among the status
	// writes (statusSeq; 0: dropped or not done).
	Accepted int
}

// DeleteEvent is one delete event run in generation Gen's handler: the
// pod's key and UID, and its place among the accepted notifications
// (statusSeq).
type DeleteEvent struct {
	Gen int
	Key string
	UID types.UID
	Seq int
}

// GenUID is a pod UID in one controller generation.
type GenUID struct {
	Gen int
	UID types.UID
}

// CleanupCall is one provider call of syncPodFromKubernetesHandler's
// cleanup: its generation, operation and outcome, the UID the provider
// held under the key then, and whether the API had an object of the name.
type CleanupCall struct {
	Gen         int
	Op          string
	Outcome     callgate.Outcome
	ProviderUID types.UID
	APIHasName  bool
}

// DanglingCall is one provider call of deleteDanglingPods and its
// outcome.
type DanglingCall struct {
	Gen     int
	Op, Key string
	Outcome callgate.Outcome
}

func terminal(ph v1.PodPhase) bool { return ph == v1.PodSucceeded || ph == v1.PodFailed }
