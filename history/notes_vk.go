package history

import (
	"strconv"
	"strings"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
)

// The virtual-kubelet pod controller's history. A VK target records what
// its API server, its provider and its controller did as Noted events
// carrying these notes, in the order it happened, and nothing else; the VK
// oracle (oracle/vk) judges the run from them alone, so the simulated VK
// world and the real PodController's driver are judged alike. A target
// must record:
//
//   - every change of the API server's pod objects, whoever made it:
//     VKCreated, VKDeleteRequested (a deletion timestamp was set),
//     VKRemoved (the object left the API, with the UID precondition the
//     call carried), VKStatusWritten (a status write landed), VKEdited
//     (another writer changed the status); and, optionally, every status
//     write of the controller that failed (VKStatusWriteFailed);
//   - every change of the provider's pods: VKProviderCreated,
//     VKProviderDeleted (the pod left the provider), VKNotified (the
//     provider called the NotifyPods callback);
//   - the controller's life: VKStarted (Run called), VKReady, VKCancelled
//     (its context was cancelled), VKDone (Done closed, with Err);
//   - VKSettled last, once the plan is over, faults healed and the
//     controller stopped: the final state of the API and the provider.
//
// Status versions: every status the provider sets for a pod carries a
// version, 1, 2, ... per pod, that a target writes into the status
// (VKStatusMessage) so that the version the API holds can be read back.

// VKCreated: pod object Name with UID was created in the API.
type VKCreated struct {
	UID  types.UID
	Name string
}

// VKDeleteRequested: UID's object was deleted with Grace seconds while it
// had no deletion timestamp yet: it got one, or (grace 0) a client removed
// it at once; By: "client" or "controller". The controller's own forced
// delete (grace 0) is not a request: it is recorded as VKRemoved alone.
type VKDeleteRequested struct {
	UID   types.UID
	Grace int64
	By    string
}

// VKRemoved: UID's object left the API. By: "client", "controller";
// Precondition: the UID precondition the delete carried ("": none).
type VKRemoved struct {
	UID          types.UID
	By           string
	Precondition types.UID
}

// VKStatusWritten: a status write for UID by the controller landed in the
// API: Phase and the provider's status Version it carried (0: a status
// not from the provider).
type VKStatusWritten struct {
	UID     types.UID
	Phase   v1.PodPhase
	Version int
}

// VKStatusWriteFailed: a status write for UID by the controller failed:
// Err is "conflict" (a stale resourceVersion or UID), "not found" or
// "transient". A target that records these gets the timing of its status
// retries judged (VK8); one that does not is judged on everything else.
type VKStatusWriteFailed struct {
	UID types.UID
	Err string
}

// VKEdited: another writer changed UID's status in the API.
type VKEdited struct{ UID types.UID }

// VKProviderCreated: the provider created UID (CreatePod succeeded).
type VKProviderCreated struct{ UID types.UID }

// VKProviderDeleted: UID left the provider; ByProvider: the provider
// deleted it by itself (not a DeletePod call).
type VKProviderDeleted struct {
	UID        types.UID
	ByProvider bool
}

// VKNotified: the provider called the NotifyPods callback with UID's
// status: Phase, Version, and Deleting when the provider set a deletion
// timestamp (provider-initiated deletion).
type VKNotified struct {
	UID      types.UID
	Phase    v1.PodPhase
	Version  int
	Deleting bool
}

// VKStarted: the controller's Run was called (Epoch 1, 2, ... per restart).
type VKStarted struct{ Epoch int }

// VKReady: the controller's Ready closed.
type VKReady struct{ Epoch int }

// VKCancelled: the controller's context was cancelled.
type VKCancelled struct{ Epoch int }

// VKDone: the controller's Done closed; Err is its Err() ("" for nil).
type VKDone struct {
	Epoch int
	Err   string
}

// VKSettled: the run is over; the final state.
type VKSettled struct{ Final VKFinal }

// VKFinal is the API server's and the provider's state at the end, sorted
// by UID, and what is left in the controller's queues.
type VKFinal struct {
	API      []VKAPIPod
	Provider []VKProviderPod
	// Queued is the number of items left in the controller's queues at
	// the end, -1 if the target cannot tell.
	Queued int
}

// VKAPIPod is one pod object in the API at the end.
type VKAPIPod struct {
	UID      types.UID
	Name     string
	Deleting bool
	Phase    v1.PodPhase
	Version  int // the provider's status version the object's status carries (0: none)
}

// VKProviderPod is one pod in the provider at the end.
type VKProviderPod struct {
	UID      types.UID
	Phase    v1.PodPhase
	Version  int
	Deleting bool // the provider set a deletion timestamp
}

func (VKCreated) isNote()           {}
func (VKDeleteRequested) isNote()   {}
func (VKRemoved) isNote()           {}
func (VKStatusWritten) isNote()     {}
func (VKEdited) isNote()            {}
func (VKStatusWriteFailed) isNote() {}
func (VKProviderCreated) isNote()   {}
func (VKProviderDeleted) isNote()   {}
func (VKNotified) isNote()          {}
func (VKStarted) isNote()           {}
func (VKReady) isNote()             {}
func (VKCancelled) isNote()         {}
func (VKDone) isNote()              {}
func (VKSettled) isNote()           {}

// VKStatusMessage is the status message that carries a provider status
// version; VKStatusVersion reads it back.
func VKStatusMessage(version int) string { return "vk-status/" + strconv.Itoa(version) }

// VKStatusVersion reads the version out of a VKStatusMessage (0 when msg
// carries none).
func VKStatusVersion(msg string) int {
	rest, ok := strings.CutPrefix(msg, "vk-status/")
	if !ok {
		return 0
	}
	n, err := strconv.Atoi(rest)
	if err != nil || n < 0 {
		return 0
	}
	return n
}
