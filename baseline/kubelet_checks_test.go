package baseline

import (
	"slices"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/oracle/kubelet"
	"github.com/podsim/podsim/workers"
)

// The kubelet-level checks of the baseline (SPEC §3.1–3.2, the World's
// kubeletCheck): assertions at the points where the kubelet's own tests
// could assert — an admission decision, a status write, the API delete, a
// shutdown kill, a SyncPod's start — and on the end state after the
// settle phase. A real run has no committed state to read at an instant,
// so each check reads the pod workers' query methods itself, around or at
// the act it judges, under the locks the act holds (see each check for why
// that cannot report a correct kubelet). Every check's caller holds mu.

// checkAdmission is K1 for one admission of cand, which counted the pods
// counted (kubeletCheck.admitted): a pod rejected at admission never
// counts (unless its UID's earlier pod object is still being torn down), a
// pod known terminated before the admission began never counts, and an
// admitted pod in config that was active throughout — by start and end,
// the views taken just before and just after the decision — must count.
// Admission, config changes and purges all hold the sync-loop lock, and
// the flags K1 reads only move one way within it, so a view's answers
// bound what the decision itself read.
func (w *baseWorld) checkAdmission(cand types.UID, counted []types.UID, start, end map[types.UID]kubelet.AdmissionView) {
	for _, uid := range counted {
		switch p := w.pods[uid]; {
		case p.rejected && !start[uid].Answers.TerminationRequested:
			w.checks.fail("K1", "admission of pod %s counted pod %s, which was rejected at admission", cand, uid)
		case start[uid].Answers.KnownTerminated:
			w.checks.fail("K1", "admission of pod %s counted pod %s, which was known terminated", cand, uid)
		}
	}
	for _, uid := range sortedUIDsOf(w.pods) {
		p := w.pods[uid]
		if uid == cand || !p.inConfig || !p.admitted || slices.Contains(counted, uid) {
			continue
		}
		if kubelet.ActiveThroughout(start[uid], end[uid]) {
			w.checks.fail("K1", "admission of pod %s did not count pod %s, which could still run", cand, uid)
		}
	}
}

// checkPhaseWrite is K2: the status manager writes a terminal phase only
// while CouldHaveRunningContainers says no container can run. couldRun is
// the answer the check asked for right before the write; the write only
// happens if no new pod object or worker record for the UID came in
// since the decision, and the answer only goes from true to false within
// one, so a correct status manager's "no" is still "no" here.
func (w *baseWorld) checkPhaseWrite(uid types.UID, phase v1.PodPhase, couldRun bool) {
	if terminalPhase(phase) && couldRun {
		w.checks.fail("K2", "the status manager wrote phase %s for pod %s while it could still have running containers", phase, uid)
	}
}

// checkAPIDelete is K3: the final API delete of uid only once the pod
// workers say it should be finished, or — the window upstream has by
// design, kubeletCheck.deleted — once it is terminated and its
// SyncTerminatedPod returned in this incarnation (finished).
func (w *baseWorld) checkAPIDelete(uid types.UID, beFinished, knownTerminated, finished bool) {
	if !beFinished && !(knownTerminated && finished) {
		w.checks.fail("K3", "the status manager deleted pod %s from the API before it was finished "+
			"(should be finished=%v, known terminated=%v, SyncTerminatedPod returned=%v)", uid, beFinished, knownTerminated, finished)
	}
}

// checkSyncPodBegins is K4's and K5's "never starts": a pod rejected at
// admission, or first added after the node shutdown began, never gets a
// SyncPod.
func (w *baseWorld) checkSyncPodBegins(uid types.UID) {
	switch p := w.pods[uid]; {
	case p == nil:
	case p.rejected && !p.admitted:
		w.checks.fail("K4", "SyncPod began for pod %s, which was rejected at admission", uid)
	case p.addedInShutdown:
		w.checks.fail("K5", "SyncPod began for pod %s, first added after the node shutdown began", uid)
	}
}

// checkShutdownKill is K5 for one kill of the node shutdown manager, as a
// unit test of the manager would assert it: the status function it kills
// with turns every phase into Failed, except Succeeded.
func (w *baseWorld) checkShutdownKill(uid types.UID, fn workers.PodStatusFunc) {
	if from, got, ok := kubelet.ShutdownFnKeepsPhase(fn); ok {
		w.checks.fail("K5", "the node shutdown kill of pod %s has a status function that turns phase %s into %q", uid, from, got)
	}
}

// checkKubeletEnd is the kubelet's end state after the settle phase: L7's
// API half (a pod with a deletion timestamp is gone from the API server)
// and K5's (a pod the node shutdown killed ends Failed, or Succeeded, in
// the API: what a node-shutdown e2e test reads; static pods have no API
// object, and one killed while waiting for its full name never had a
// status at all, SPEC §1.2).
func (w *baseWorld) checkKubeletEnd() {
	if w.kube == nil {
		return
	}
	for _, uid := range sortedUIDsOf(w.pods) {
		p, st := w.pods[uid], w.kube.statusOf(uid)
		if w.kube.node.APIServer && p.inAPI && p.deletion != nil {
			w.checks.fail("L7", "pod %s: deleted, still in the API server after the settle phase (phase %q in the API, "+
				"%q in the status manager, rejected=%v)", uid, p.apiPhase, st.Phase, p.rejected)
		}
		if p.killedByShutdown && p.inAPI && !terminalPhase(p.apiPhase) {
			w.checks.fail("K5", "pod %s: killed by the node shutdown, phase %q in the API (%q in the status manager) after the settle phase",
				uid, p.apiPhase, st.Phase)
		}
	}
}
