package world

import (
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/model/ops"
	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/workers"
)

// Admission (HandlePodAdditions, canAdmitPod; SPEC §2, K1): resources
// are counted over the active pods; a rejected pod gets a local Failed
// status and never reaches the pod workers.

// add is the config source's ADD (HandlePodAdditions): admission, then
// create, or a local rejection that never reaches the pod workers. A fresh
// ADD (the pod was not in config) is a new pod object.
func (w *World) add(uid types.UID, fresh bool) { w.addWith(uid, fresh, plan.Action{}) }

// addWith is add for a plan's Create, whose ADD carries kill options when
// a.KillOpts (api-shapes).
func (w *World) addWith(uid types.UID, fresh bool, a plan.Action) {
	p := w.pod(uid)
	if fresh && w.kube != nil {
		// A new pod object under a reused UID: nothing of the old one's API
		// state or local status carries over.
		p.rejected, p.phase = false, v1.PodRunning
		delete(w.kube.status, uid)
		if w.kube.node.APIServer && !p.action.Static {
			p.deletion, p.deletedAt, p.apiPhase, p.echoDue = nil, unset, "", false
		}
	}
	if fresh {
		w.adds++
		p.created = w.adds
	}
	if p.firstAddAt == unset {
		p.firstAddAt = w.S.Elapsed()
		p.addedInShutdown = w.kube != nil && (w.kube.shuttingDown() || w.nodeShutdown)
	}
	if !p.action.Static && w.kube != nil && w.kube.node.APIServer {
		p.inAPI = true
	}
	if !w.admit(uid) {
		return
	}
	p.admitted = true
	ko, id := w.extraKillOptions(a)
	w.updatePod(workers.UpdatePodOptions{UpdateType: workers.SyncPodCreate, Pod: w.podOf(uid), KillPodOptions: ko}, id)
}

// admit is the admission decision (canAdmitPod): skipped for pods whose
// API phase is terminal (#126343); during a node shutdown every pod is
// rejected; else the pod must fit next to the active pods. A rejected pod
// gets a local Failed status. Upstream also skips admission when the UID's
// termination is requested: only a new pod object reusing the UID of one
// being torn down can meet that (a restart's re-adds meet fresh pod
// workers); we admit it like any new pod, so that K4 and K5 hold for it.
func (w *World) admit(uid types.UID) bool {
	k, p := w.kube, w.pod(uid)
	switch {
	case k == nil:
		return true
	case p.rejected:
		return false // its local Failed status is final
	case p.admitted:
		return true // an ADD of a pod this kubelet admitted already (a same-UID re-add)
	case terminalPhase(p.phase):
		return true
	}
	// A kubelet that started during the node shutdown admits, as its
	// restart re-adds them, the pods from before the shutdown: they were
	// the old process's snapshot, its to kill.
	ok := !k.shuttingDown() || w.readding && k.learned && !p.addedInShutdown
	if ok {
		w.note(history.AdmissionBegins{})
		counted := w.activePods(uid)
		ok = w.fits(uid, counted)
		w.note(history.Admitted{UID: uid, Counted: counted})
		w.markAdmission(uid, ok)
		if ok && k.cancelled {
			w.mark(plan.MarkAdmittedAfterCancel)
		}
	} else {
		w.mark(plan.MarkShutdownAdmissionClosed)
		if k.learned && p.addedInShutdown {
			w.mark(plan.MarkRestartShutdownRejected)
		}
	}
	if !ok {
		p.rejected = true
		k.statusOf(uid).Phase = v1.PodFailed
	}
	return ok
}

// reAddRejected: with a kubelet, during a node shutdown, a config change
// (an update, sync or delete) of a pod out of config is upstream's ADD
// (the config merge adds a pod it does not have), and admission rejects it
// unless the pod's phase is terminal or the pod workers say its
// termination is requested (HandlePodAdditions skips admission then): the
// change never reaches the pod workers. The real kubelet's driver drops
// the same change (realkubelet's configUpdate). The rejection's other
// effects (the pod back in config, its local Failed) are not modelled: the
// plan's change leaves config as it is. A Finish makes the phase terminal,
// so it is never rejected. Call it only for a change that would otherwise
// reach the pod workers: it asks them (a recorded query) when the rest holds.
func (w *World) reAddRejected(p *configPod) bool {
	return w.kube != nil && !p.inConfig && w.kube.shuttingDown() && !terminalPhase(p.phase) &&
		!w.ask(ops.IsPodTerminationRequested, p.action.UID)
}

// activePods is GetActivePods without the candidate: the pods in config
// that could still hold resources (filterOutInactivePods; upstream's is a
// *Kubelet method, so the real target cannot call it: realkubelet restates
// its rule for housekeeping's restarts, realkubelet/status.go): not known
// terminated, and not terminal in config or in the status manager unless
// their termination is requested (terminal but still terminating pods
// count; pods rejected locally are terminal in the status manager).
func (w *World) activePods(except types.UID) []types.UID {
	var out []types.UID
	for _, p := range w.inOrder {
		uid := p.action.UID
		inPodManager := p.inConfig && (p.admitted || p.rejected) // added (a restart re-adds one by one)
		if uid == except || !inPodManager || w.ask(ops.IsPodKnownTerminated, uid) {
			continue
		}
		terminal := terminalPhase(p.phase)
		if !w.Bugs.B5AdmitCountsRejected {
			terminal = terminal || terminalPhase(w.kube.statusOf(uid).Phase)
		}
		if terminal && !w.ask(ops.IsPodTerminationRequested, uid) {
			continue
		}
		out = append(out, uid)
	}
	return out
}

// markAdmission marks a rejection for resources, and an admission that
// fits only because some pod in config no longer counts.
func (w *World) markAdmission(uid types.UID, ok bool) {
	if !ok {
		w.mark(plan.MarkAdmissionRejected)
		return
	}
	var all []types.UID
	for _, q := range w.inOrder {
		if other := q.action.UID; other != uid && q.inConfig && (q.admitted || q.rejected) {
			all = append(all, other)
		}
	}
	if !w.fits(uid, all) {
		w.mark(plan.MarkAdmittedAfterRelease)
	}
}

// fits: the candidate's requests plus the counted pods' fit the node.
func (w *World) fits(uid types.UID, counted []types.UID) bool {
	cpu, mem := w.pod(uid).action.CPU, w.pod(uid).action.Mem
	for _, c := range counted {
		cpu, mem = cpu+w.pod(c).action.CPU, mem+w.pod(c).action.Mem
	}
	return w.kube.node.Fits(cpu, mem)
}
