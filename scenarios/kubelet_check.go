package scenarios

import (
	"fmt"
	"slices"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/workers"
)

// kubeletCheck is the oracle of the kubelet-level invariants K1–K5 and of
// L7's last step (the API delete), SPEC §3.1–3.2. (K6, ours, the API side's
// identity invariant of BUGS.md V2, is identityCheck in
// kubelet_check_identity.go: it lives on the World, as the API server does,
// and reports under the same "kubelet" oracle.) It judges the kubelet's
// actors at the instant they act, against the pod workers' committed
// state: the query answers as of the last release of the pod lock (a
// critical section in progress has not taken effect yet, so an actor
// calling a query would see exactly this). It keeps those answers itself,
// at every release (World's lock hook), so judging adds no scheduling
// point and reads no half-updated record. Its violations join the World's
// (Oracle "kubelet"), as do those of K6, ours (BUGS.md V2's identity
// invariant), which judges the API server side (kubelet_check_identity.go).
type kubeletCheck struct {
	answers map[types.UID]workers.Answers // committed, per UID the plan names
	// start is the committed state when the admission in progress began.
	start map[types.UID]admissionView
	// shutdownSnapshot and shutdownKilled: the pods the node shutdown
	// manager must kill, and those it did (K5).
	shutdownSnapshot []types.UID
	shutdownKilled   map[types.UID]bool
	// cleanedUp: SyncTerminatedPod returned nil in the UID's current
	// incarnation (K3's window, see deleted).
	cleanedUp map[types.UID]bool
}

// admissionView is what K1 reads of one pod.
type admissionView struct {
	answers  workers.Answers
	terminal bool // terminal phase in config or in the status manager
}

func newKubeletCheck() kubeletCheck {
	return kubeletCheck{answers: map[types.UID]workers.Answers{}, shutdownKilled: map[types.UID]bool{},
		cleanedUp: map[types.UID]bool{}}
}

// committed is uid's committed answers (before the first release: an
// unknown UID of pod workers that never synced).
func (c *kubeletCheck) committed(uid types.UID) workers.Answers {
	if a, ok := c.answers[uid]; ok {
		return a
	}
	return workers.Answers{CouldHaveRunning: true}
}

// lockReleasing records the committed answers; the pod lock is held.
func (c *kubeletCheck) lockReleasing(w *World) {
	for uid := range w.pods {
		c.answers[uid] = w.PW.AnswersLocked(uid)
	}
}

func (w *World) violateKubelet(invariant, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if w.seen == nil {
		w.seen = map[string]bool{}
	}
	if w.seen[msg] {
		return
	}
	w.seen[msg] = true
	w.Violations = append(w.Violations, Violation{Oracle: "kubelet", Invariant: invariant,
		Message: msg + " (" + invariant + ")", At: w.S.Elapsed(), Seq: w.seq})
}

func (c *kubeletCheck) view(w *World, uid types.UID) admissionView {
	p := w.pods[uid]
	return admissionView{answers: c.committed(uid),
		terminal: terminalPhase(p.phase) || terminalPhase(w.kube.statusOf(uid).phase)}
}

// admissionBegins snapshots what K1 compares the end of the admission with.
func (c *kubeletCheck) admissionBegins(w *World) {
	c.start = map[types.UID]admissionView{}
	for uid := range w.pods {
		c.start[uid] = c.view(w, uid)
	}
}

// activeThroughout: K1's rule held all along between two views of one
// pod during an admission. The flags only move one way, but a pod can turn
// inactive for a moment: its own status turns terminal (natural
// completion) before the pod workers commit its termination request, as
// upstream's SyncPod sets the phase before it returns.
func activeThroughout(start, end admissionView) bool {
	if start.answers.KnownTerminated || end.answers.KnownTerminated {
		return false
	}
	return start.answers.TerminationRequested || (!start.terminal && !end.terminal)
}

// admitted is K1 for one admission of cand, which counted the pods counted:
// a locally rejected pod never counts (unless an earlier pod object with
// its UID is still being torn down: those containers do hold resources),
// a pod known terminated when the admission began never counts, and an
// admitted pod in config that was active by K1's rule throughout the
// admission must count. Purges and
// restarts cannot happen meanwhile: they run in the sync loop, like
// admission.
func (c *kubeletCheck) admitted(w *World, cand types.UID, counted []types.UID) {
	for _, uid := range counted {
		p := w.pods[uid]
		switch {
		case p.rejected && !c.start[uid].answers.TerminationRequested:
			w.violateKubelet("K1", "admission of pod %s counted pod %s, which was rejected at admission", cand, uid)
		case c.start[uid].answers.KnownTerminated:
			w.violateKubelet("K1", "admission of pod %s counted pod %s, which was known terminated", cand, uid)
		}
	}
	for _, uid := range w.sortedUIDs() {
		p := w.pods[uid]
		if uid == cand || !p.inConfig || !p.admitted || slices.Contains(counted, uid) {
			continue
		}
		if start, end := c.start[uid], c.view(w, uid); activeThroughout(start, end) {
			w.violateKubelet("K1", "admission of pod %s did not count pod %s, which could still run (%s)",
				cand, uid, answersString(c.committed(uid)))
		}
	}
}

// phaseWritten is K2: a terminal phase reaches the API only once the pod
// workers say the pod can have no running containers.
func (c *kubeletCheck) phaseWritten(w *World, uid types.UID, phase v1.PodPhase) {
	if terminalPhase(phase) && c.committed(uid).CouldHaveRunning {
		w.violateKubelet("K2", "the status manager wrote phase %s for pod %s while it could still have running containers (%s)",
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
func (c *kubeletCheck) deleted(w *World, uid types.UID) {
	a := c.committed(uid)
	if !a.BeFinished && !(a.KnownTerminated && c.cleanedUp[uid]) {
		w.violateKubelet("K3", "the status manager deleted pod %s from the API before it was finished (%s)",
			uid, answersString(c.committed(uid)))
	}
}

// restarted is K4's first half: housekeeping re-creates only active pods:
// never one rejected at admission, nor one whose config phase is terminal
// (see World.restartable for the status manager's phase).
func (c *kubeletCheck) restarted(w *World, uid types.UID) {
	p := w.pods[uid]
	if p.rejected || terminalPhase(p.phase) || c.committed(uid).KnownTerminated {
		w.violateKubelet("K4", "housekeeping re-created pod %s, which is not active (rejected=%v, %s)",
			uid, p.rejected, answersString(c.committed(uid)))
	}
}

// syncPodBegins is K4's second half and K5's first: a pod rejected at
// admission, or first added after the node shutdown began, never starts
// containers.
func (c *kubeletCheck) syncPodBegins(w *World, uid types.UID) {
	p := w.pods[uid]
	switch k := w.kube; {
	case k == nil:
	case p == nil:
	case p.rejected && !p.admitted:
		w.violateKubelet("K4", "SyncPod began for pod %s, which was rejected at admission", uid)
	case p.addedInShutdown:
		w.violateKubelet("K5", "SyncPod began for pod %s, first added at %v, after the node shutdown began at %v",
			uid, p.firstAddAt, k.shutdownAt)
	}
}

// shutdownKill is K5's second half for one kill: its status function must
// set Failed, unless the pod already Succeeded.
func (c *kubeletCheck) shutdownKill(w *World, uid types.UID, fn workers.PodStatusFunc) {
	c.shutdownKilled[uid] = true
	if from, got, bad := shutdownFnKeepsPhase(fn); bad {
		w.violateKubelet("K5", "the node shutdown kill of pod %s has a status function that turns phase %s into %q, want %s",
			uid, from, got, shutdownPhaseFrom(from))
	}
}

// shutdownFnKeepsPhase applies a node shutdown kill's status function to
// every phase: bad if it leaves one other than Succeeded non-Failed (from,
// and what it made of it). The World's K5 and the baseline's share it.
func shutdownFnKeepsPhase(fn workers.PodStatusFunc) (from, got v1.PodPhase, bad bool) {
	for _, from := range []v1.PodPhase{v1.PodPending, v1.PodRunning, v1.PodSucceeded, v1.PodFailed} {
		s := v1.PodStatus{Phase: from}
		if fn != nil {
			fn(&s)
		}
		if s.Phase != shutdownPhaseFrom(from) {
			return from, s.Phase, true
		}
	}
	return "", "", false
}

// shutdownPhaseFrom is the phase a node shutdown kill must leave: Failed,
// unless the pod already Succeeded.
func shutdownPhaseFrom(from v1.PodPhase) v1.PodPhase {
	if from == v1.PodSucceeded {
		return v1.PodSucceeded
	}
	return v1.PodFailed
}

// shutdownDone is K5 for the snapshot: every pod in it got a kill.
func (c *kubeletCheck) shutdownDone(w *World) {
	for _, uid := range c.shutdownSnapshot {
		if !c.shutdownKilled[uid] {
			w.violateKubelet("K5", "pod %s was active when the node shutdown began, but the shutdown never killed it", uid)
		}
	}
}

// settled is L7's API half, judged after the settle phase: a pod with a
// deletion timestamp is gone from the API server (#118472, #116925).
func (c *kubeletCheck) settled(w *World) {
	if !w.kube.node.APIServer {
		return
	}
	for _, uid := range w.sortedUIDs() {
		p := w.pods[uid]
		if p.inAPI && p.deletion != nil {
			w.violateKubelet("L7", "pod %s: deletion timestamp set at %v, still in the API server after the settle phase "+
				"(phase %q in the API, %q in the status manager, rejected=%v, %s)", uid, p.deletedAt, p.apiPhase,
				w.kube.statusOf(uid).phase, p.rejected, answersString(c.committed(uid)))
		}
	}
}

// answersString is the committed state of one pod, for messages.
func answersString(a workers.Answers) string {
	if !a.Known {
		return fmt.Sprintf("unknown to the pod workers, could have running containers=%v", a.CouldHaveRunning)
	}
	return "state " + stateLetter(a, true)
}
