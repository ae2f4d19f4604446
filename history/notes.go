package history

import (
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
)

// Note is what a kubelet-level actor did, carried by a Noted event: the
// facts the kubelet-level checks (K1–K6, L7's API half) judge, at the
// instant they happen. Each note names the pod; what the checks need to
// know of it besides, they read through the target's view.
type Note interface{ isNote() }

// AdmissionBegins: the kubelet starts admitting a pod (what K1 compares the
// end of the admission with is the state now).
type AdmissionBegins struct{}

// Admitted: admission of UID counted the pods Counted and admitted it.
type Admitted struct {
	UID     types.UID
	Counted []types.UID
}

// PhaseWritten: the status manager wrote Phase for UID to the API.
type PhaseWritten struct {
	UID   types.UID
	Phase v1.PodPhase
}

// DeleteRequested: a client deleted UID's current pod object from the API
// with Grace seconds.
type DeleteRequested struct {
	UID   types.UID
	Grace int64
}

// Removed: an actor (By: "status manager", "grace reaper") removed UID's
// object from the API; Forced: a forced delete, which does not wait for
// the pod.
type Removed struct {
	UID    types.UID
	By     string
	Forced bool
}

// HousekeepingRestart: housekeeping re-created UID in the pod workers.
type HousekeepingRestart struct{ UID types.UID }

// SyncPodBegins: SyncPod is about to begin for UID.
type SyncPodBegins struct{ UID types.UID }

// ShutdownBegins: the node shutdown manager began a graceful shutdown; the
// pods in Active must each be killed.
type ShutdownBegins struct{ Active []types.UID }

// ShutdownKill: the node shutdown manager killed UID with StatusFn, the
// status function of its kill.
type ShutdownKill struct {
	UID      types.UID
	StatusFn func(*v1.PodStatus)
}

// ShutdownDone: the node shutdown manager's kills all returned.
type ShutdownDone struct{}

// ShutdownCancelled: the node shutdown manager read logind's cancellation
// of the shutdown (after its processing returned) and reopened admission.
type ShutdownCancelled struct{}

// LogindRestarted: logind restarted under the node shutdown manager before
// its shutdown event, and the manager watches it again on its connection
// number Watching (the real kubelet's logind restarts only; no oracle
// reads it: the trace shows it).
type LogindRestarted struct{ Watching int }

// KubeletSettled: the settle phase is over (just before Settled).
type KubeletSettled struct{}

// StatusRead: a pod worker asked the runtime cache (the PodCache the
// caller hands the pod workers) for UID's status newer than NewerThan, as
// virtual time since the run's start (-1: the zero time, any status).
type StatusRead struct {
	UID       types.UID
	NewerThan time.Duration
}

// Requeued: the pod workers put UID on the kubelet's work queue (the
// WorkQueue the caller hands them), due after Delay (SPEC §1.8 step 5,
// §1.10's refused static start).
type Requeued struct {
	UID   types.UID
	Delay time.Duration
}

func (AdmissionBegins) isNote()     {}
func (Admitted) isNote()            {}
func (PhaseWritten) isNote()        {}
func (DeleteRequested) isNote()     {}
func (Removed) isNote()             {}
func (HousekeepingRestart) isNote() {}
func (SyncPodBegins) isNote()       {}
func (ShutdownBegins) isNote()      {}
func (ShutdownKill) isNote()        {}
func (ShutdownDone) isNote()        {}
func (ShutdownCancelled) isNote()   {}
func (LogindRestarted) isNote()     {}
func (KubeletSettled) isNote()      {}
func (Requeued) isNote()            {}
func (StatusRead) isNote()          {}

// ActionBegins and ActionDone bracket one plan action a client performs,
// in the client's goroutine (client/<n>), at the moment the config source
// or the kubelet actor starts and ends carrying it out: the calls between
// them are the action's (the plan-conformance check, oracle/conform,
// matches the n-th bracket of a client with that client's n-th action).
type ActionBegins struct{}

// ActionDone: see ActionBegins.
type ActionDone struct{}

func (ActionBegins) isNote() {}
func (ActionDone) isNote()   {}

// EvictionBegins: the eviction manager starts evicting UID (an Evict plan
// action's actor, in its own goroutine): what it does next depends on the
// pod as it is now.
type EvictionBegins struct{ UID types.UID }

func (EvictionBegins) isNote() {}
