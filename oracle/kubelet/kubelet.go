// Package kubelet is the oracle of the kubelet-level invariants: K1–K5 and
// L7's API half (SPEC §3.1–3.2), and K6, the API side's identity invariant
// (ours, from docs/bugs.md V2). It judges the kubelet's actors at the instant
// they act (history.Noted events), against the pod workers' committed
// state, and needs the target's Kubelet view: a target without the
// kubelet around its pod workers does not get it.
package kubelet

import (
	"fmt"
	"slices"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/model/ops"
	"github.com/podsim/podsim/oracle"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
)

// kubeletCheck is the oracle of the kubelet-level invariants K1–K5 and of
// L7's last step (the API delete), SPEC §3.1–3.2. (K6, ours, the API side's
// identity invariant of docs/bugs.md V2, is identityCheck in
// identity.go: it keeps its record across kubelet restarts, as the API
// server does, and reports under the same "kubelet" oracle.) It judges the kubelet's
// actors at the instant they act, against the pod workers' committed
// state: the query answers as of the last release of the pod lock (a
// critical section in progress has not taken effect yet, so an actor
// calling a query would see exactly this). It keeps those answers itself,
// at every release (LockReleasing), so judging reads no half-updated
// record.
type kubeletCheck struct {
	*reporter
	answers committedSet // committed, per UID the plan names
	// start is the committed state when the admission in progress began.
	start map[types.UID]AdmissionView
	// shutdownSnapshot and shutdownKilled: the pods the node shutdown
	// manager must kill, and those it did (K5).
	shutdownSnapshot []types.UID
	shutdownKilled   map[types.UID]bool
	// cleanedUp: SyncTerminatedPod returned nil in the UID's current
	// incarnation (K3's window, see deleted).
	cleanedUp map[types.UID]bool
}

// AdmissionView is what K1 reads of one pod (the baseline reads it too).
type AdmissionView struct {
	Answers  oracle.Answers
	Terminal bool // terminal phase in config or in the status manager
}

func newKubeletCheck(r *reporter) kubeletCheck {
	return kubeletCheck{reporter: r, shutdownKilled: map[types.UID]bool{},
		cleanedUp: map[types.UID]bool{}}
}

// committed is uid's committed answers (before the first release: an
// unknown UID of pod workers that never synced).
func (c *kubeletCheck) committed(uid types.UID) oracle.Answers {
	if a, ok := c.answers.get(uid); ok {
		return a
	}
	return oracle.Answers{CouldHaveRunning: true}
}

// lockReleasing records the committed answers: what the public query
// methods returned at the end of the critical section (the event's Probe;
// a release without one commits nothing).
func (c *kubeletCheck) lockReleasing(v oracle.View, probe *history.Probe) {
	if probe == nil {
		return
	}
	c.answers.record(v.Kubelet().UIDs(), probe)
}

func (c *kubeletCheck) view(k oracle.Kubelet, uid types.UID) AdmissionView {
	p := k.Pod(uid)
	return AdmissionView{Answers: c.committed(uid),
		Terminal: terminalPhase(p.Phase) || terminalPhase(p.StatusPhase)}
}

// callback follows K3's window: SyncTerminatedPod returned nil in the
// UID's current incarnation (cleanedUp) until a SyncPod or
// SyncTerminatingPod begins, which only a new incarnation runs.
func (c *kubeletCheck) callback(in ops.Input) {
	switch in := in.(type) {
	case ops.SyncBegin:
		if in.Fn == ops.SyncPod || in.Fn == ops.SyncTerminatingPod {
			c.cleanedUp[types.UID(in.UID)] = false
		}
	case ops.SyncEnd:
		if in.Fn == ops.SyncTerminatedPod && in.Outcome == ops.OK {
			c.cleanedUp[types.UID(in.UID)] = true
		}
	}
}

// admissionBegins snapshots what K1 compares the end of the admission with.
func (c *kubeletCheck) admissionBegins(k oracle.Kubelet) {
	c.start = map[types.UID]AdmissionView{}
	for _, uid := range k.UIDs() {
		c.start[uid] = c.view(k, uid)
	}
}

// ActiveThroughout: K1's rule held all along between two views of one
// pod during an admission. The flags only move one way, but a pod can turn
// inactive for a moment: its own status turns terminal (natural
// completion) before the pod workers commit its termination request, as
// upstream's SyncPod sets the phase before it returns.
func ActiveThroughout(start, end AdmissionView) bool {
	if start.Answers.KnownTerminated || end.Answers.KnownTerminated {
		return false
	}
	return start.Answers.TerminationRequested || (!start.Terminal && !end.Terminal)
}

// admitted is K1 for one admission of cand, which counted the pods counted:
// a locally rejected pod never counts (unless an earlier pod object with
// its UID is still being torn down: those containers do hold resources),
// a pod known terminated when the admission began never counts, and an
// admitted pod in config that was active by K1's rule throughout the
// admission must count. Purges and
// restarts cannot happen meanwhile: they run in the sync loop, like
// admission.
func (c *kubeletCheck) admitted(k oracle.Kubelet, cand types.UID, counted []types.UID) {
	for _, uid := range counted {
		p := k.Pod(uid)
		switch {
		case p.Rejected && !c.start[uid].Answers.TerminationRequested:
			c.violate("K1", "admission of pod %s counted pod %s, which was rejected at admission", cand, uid)
		case c.start[uid].Answers.KnownTerminated:
			c.violate("K1", "admission of pod %s counted pod %s, which was known terminated", cand, uid)
		}
	}
	for _, uid := range k.UIDs() {
		p := k.Pod(uid)
		if uid == cand || !p.InConfig || !p.Admitted || slices.Contains(counted, uid) {
			continue
		}
		if start, end := c.start[uid], c.view(k, uid); ActiveThroughout(start, end) {
			c.violate("K1", "admission of pod %s did not count pod %s, which could still run (%s)",
				cand, uid, answersString(c.committed(uid)))
		}
	}
}

// phaseWritten is K2: a terminal phase reaches the API only once the pod
// workers say the pod can have no running containers.
func (c *kubeletCheck) phaseWritten(uid types.UID, phase v1.PodPhase) {
	if terminalPhase(phase) && c.committed(uid).CouldHaveRunning {
		c.violate("K2", "the status manager wrote phase %s for pod %s while it could still have running containers (%s)",
			phase, uid, answersString(c.committed(uid)))
	}
}

// deleted is K3: the final API delete of uid (UID precondition) happens
// only once the pod workers say the pod should be finished. One window is
// accepted, because upstream has it by design: the status manager learns
// that the pod is finished from TerminatePod, the last step of a
// successful SyncTerminatedPod, so its delete may come between that call's
// return and the pod workers' commit of "finished" — when the record is
// terminated and nothing is left to do.
func (c *kubeletCheck) deleted(uid types.UID) {
	a := c.committed(uid)
	if !a.BeFinished && !(a.KnownTerminated && c.cleanedUp[uid]) {
		c.violate("K3", "the status manager deleted pod %s from the API before it was finished (%s)",
			uid, answersString(c.committed(uid)))
	}
}

// restarted is K4's first half: housekeeping re-creates only active pods:
// never one rejected at admission, nor one whose config phase is terminal
// (the world's restartable decides by the status manager's phase too).
func (c *kubeletCheck) restarted(k oracle.Kubelet, uid types.UID) {
	p := k.Pod(uid)
	if p.Rejected || terminalPhase(p.Phase) || c.committed(uid).KnownTerminated {
		c.violate("K4", "housekeeping re-created pod %s, which is not active (rejected=%v, %s)",
			uid, p.Rejected, answersString(c.committed(uid)))
	}
}

// syncPodBegins is K4's second half and K5's first: a pod rejected at
// admission, or first added while a node shutdown was in force (after it
// began, before the manager read its cancellation), never starts
// containers.
func (c *kubeletCheck) syncPodBegins(k oracle.Kubelet, uid types.UID) {
	switch p := k.Pod(uid); {
	case p.Rejected && !p.Admitted:
		c.violate("K4", "SyncPod began for pod %s, which was rejected at admission", uid)
	case p.AddedInShutdown:
		c.violate("K5", "SyncPod began for pod %s, first added at %v, after the node shutdown began at %v",
			uid, p.FirstAddAt, k.ShutdownAt())
	}
}

// shutdownKill is K5's second half for one kill: its status function must
// set Failed, unless the pod already Succeeded.
func (c *kubeletCheck) shutdownKill(uid types.UID, fn func(*v1.PodStatus)) {
	c.shutdownKilled[uid] = true
	if from, got, bad := ShutdownFnKeepsPhase(fn); bad {
		c.violate("K5", "the node shutdown kill of pod %s has a status function that turns phase %s into %q, want %s",
			uid, from, got, ShutdownPhaseFrom(from))
	}
}

// ShutdownFnKeepsPhase applies a node shutdown kill's status function to
// every phase: bad if it leaves one other than Succeeded non-Failed (from,
// and what it made of it). The oracle's K5 and the baseline's share it.
func ShutdownFnKeepsPhase(fn func(*v1.PodStatus)) (from, got v1.PodPhase, bad bool) {
	for _, from := range []v1.PodPhase{v1.PodPending, v1.PodRunning, v1.PodSucceeded, v1.PodFailed} {
		s := v1.PodStatus{Phase: from}
		if fn != nil {
			fn(&s)
		}
		if s.Phase != ShutdownPhaseFrom(from) {
			return from, s.Phase, true
		}
	}
	return "", "", false
}

// ShutdownPhaseFrom is the phase a node shutdown kill must leave: Failed,
// unless the pod already Succeeded.
func ShutdownPhaseFrom(from v1.PodPhase) v1.PodPhase {
	if from == v1.PodSucceeded {
		return v1.PodSucceeded
	}
	return v1.PodFailed
}

// shutdownDone is K5 for the snapshot: every pod in it got a kill.
func (c *kubeletCheck) shutdownDone() {
	for _, uid := range c.shutdownSnapshot {
		if !c.shutdownKilled[uid] {
			c.violate("K5", "pod %s was active when the node shutdown began, but the shutdown never killed it", uid)
		}
	}
}

// settled is L7's API half, judged after the settle phase: a pod with a
// deletion timestamp is gone from the API server (#118472, #116925).
func (c *kubeletCheck) settled(k oracle.Kubelet) {
	if !k.APIServer() {
		return
	}
	for _, uid := range k.UIDs() {
		p := k.Pod(uid)
		if p.InAPI && p.Deleted {
			c.violate("L7", "pod %s: deletion timestamp set at %v, still in the API server after the settle phase "+
				"(phase %q in the API, %q in the status manager, rejected=%v, %s)", uid, p.DeletedAt, p.APIPhase,
				p.StatusPhase, p.Rejected, answersString(c.committed(uid)))
		}
	}
}

// answersString is the committed state of one pod, for messages.
func answersString(a oracle.Answers) string {
	if !a.Known {
		return fmt.Sprintf("unknown to the pod workers, could have running containers=%v", a.CouldHaveRunning)
	}
	return "state " + oracle.StateLetter(a, true)
}
