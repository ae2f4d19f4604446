package scenarios

import (
	"slices"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/model"
	"github.com/podsim/podsim/workers"
)

// The kubelet around the pod workers (SPEC §2), switched on by Plan.Node:
// admission with resource accounting, the status manager and the API
// server model. The node shutdown manager, the eviction manager and the
// kubelet restart have files of their own. Everything here runs in
// simulated goroutines: admission in the sync loop (HandlePodAdditions),
// the status manager as a daemon of its own.

// KubeletBugs re-introduces the kubelet-level bugs of BUGS.md ("K"
// entries): each field, off by default, brings one back, and names the
// invariant that must catch it. The correct world has every field false.
type KubeletBugs struct {
	// B4ShutdownKeepsPhase: the node shutdown manager's status function sets
	// only the reason and message, not Phase=Failed (#104531). Caught by K5.
	B4ShutdownKeepsPhase bool
	// B5AdmitCountsRejected: admission's active set leaves out only pods
	// whose terminal phase came back from the API, so a pod rejected
	// locally counts until the API echoes its Failed status (#104560,
	// #104817). Caught by K1.
	B5AdmitCountsRejected bool
	// B10StatusIgnoresRunning: the status manager writes a terminal phase
	// without asking CouldHaveRunningContainers (#106884, #108366). Caught
	// by K2.
	B10StatusIgnoresRunning bool
	// B13NoTerminalDeleteFilter: housekeeping does not kill terminal,
	// deleted pods the pod workers do not know (filterTerminalPodsToDelete,
	// #118472/#118497), so a pod rejected at admission and then deleted is
	// never finished and never deleted from the API. Caught by L7 (API).
	B13NoTerminalDeleteFilter bool
}

// StatusSyncPeriod is how often the status manager writes to the API server
// (its syncPeriod batch; it also reacts to changes, which the period
// stands for here).
const StatusSyncPeriod = time.Second

// kubelet is the kubelet's memory besides the pod workers: lost at a
// kubelet restart (restart.go), unlike the API server's state, which lives
// on configPod.
type kubelet struct {
	node *Node
	// status is the status manager's cache: the phase the kubelet wants
	// published and whether TerminatePod ran (podIsFinished).
	status map[types.UID]*podStatus
	// shutdownAt is when the node shutdown began (unset: none).
	shutdownAt time.Duration
	check      kubeletCheck
}

// podStatus is the status manager's record of one pod.
type podStatus struct {
	phase    v1.PodPhase // "" until the kubelet sets one
	finished bool        // SyncTerminatedPod succeeded: the API delete may go ahead
}

func newKubelet(n *Node) *kubelet {
	return &kubelet{node: n, status: map[types.UID]*podStatus{}, shutdownAt: unset, check: newKubeletCheck()}
}

func (k *kubelet) statusOf(uid types.UID) *podStatus {
	s := k.status[uid]
	if s == nil {
		s = &podStatus{}
		k.status[uid] = s
	}
	return s
}

func terminalPhase(p v1.PodPhase) bool { return p == v1.PodSucceeded || p == v1.PodFailed }

// ask is a query a kubelet subsystem makes of the pod workers, recorded
// like the plan's own queries (it is an observation point for the model).
func (w *World) ask(kind model.QueryKind, uid types.UID) bool {
	pw := w.PW
	q := [...]func(types.UID) bool{pw.IsPodKnownTerminated, pw.CouldHaveRunningContainers, pw.ShouldPodBeFinished,
		pw.IsPodTerminationRequested, pw.ShouldPodContainersBeTerminating, pw.ShouldPodRuntimeBeRemoved,
		pw.ShouldPodContentBeRemoved}[kind]
	id := w.call(model.Query{Kind: kind, UID: string(uid)})
	ans := q(uid)
	w.ret(id, model.Answer(ans))
	return ans
}

// sortedUIDs lists every pod the plan named, sorted.
func (w *World) sortedUIDs() []types.UID {
	uids := make([]types.UID, 0, len(w.pods))
	for uid := range w.pods {
		uids = append(uids, uid)
	}
	slices.Sort(uids)
	return uids
}

// add is the config source's ADD (HandlePodAdditions): admission, then
// create, or a local rejection that never reaches the pod workers. A fresh
// ADD (the pod was not in config) is a new pod object.
func (w *World) add(uid types.UID, fresh bool) {
	p := w.pods[uid]
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
		p.addedInShutdown = w.kube != nil && w.kube.shutdownAt != unset
	}
	if !p.action.Static && w.kube != nil && w.kube.node.APIServer {
		p.inAPI = true
	}
	if !w.admit(uid) {
		return
	}
	p.admitted = true
	w.update(workers.SyncPodCreate, uid, nil)
}

// admit is the admission decision (canAdmitPod): skipped for pods whose
// API phase is terminal (#126343); during a node shutdown every pod is
// rejected; else the pod must fit next to the active pods. A rejected pod
// gets a local Failed status. Upstream also skips admission when the UID's
// termination is requested: only a new pod object reusing the UID of one
// being torn down can meet that (a restart's re-adds meet fresh pod
// workers); we admit it like any new pod, so that K4 and K5 hold for it.
func (w *World) admit(uid types.UID) bool {
	k, p := w.kube, w.pods[uid]
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
	ok := k.shutdownAt == unset
	if ok {
		k.check.admissionBegins(w)
		counted := w.activePods(uid)
		ok = w.fits(uid, counted)
		k.check.admitted(w, uid, counted)
		w.markAdmission(uid, ok)
	} else {
		w.mark(MarkShutdownAdmissionClosed)
	}
	if !ok {
		p.rejected = true
		k.statusOf(uid).phase = v1.PodFailed
	}
	return ok
}

// activePods is GetActivePods without the candidate: the pods in config
// that could still hold resources (filterOutInactivePods): not known
// terminated, and not terminal in config or in the status manager unless
// their termination is requested (terminal but still terminating pods
// count; pods rejected locally are terminal in the status manager).
func (w *World) activePods(except types.UID) []types.UID {
	var out []types.UID
	for _, uid := range w.sortedUIDs() {
		p := w.pods[uid]
		inPodManager := p.inConfig && (p.admitted || p.rejected) // added (a restart re-adds one by one)
		if uid == except || !inPodManager || w.ask(model.IsPodKnownTerminated, uid) {
			continue
		}
		terminal := terminalPhase(p.phase)
		if !w.Bugs.B5AdmitCountsRejected {
			terminal = terminal || terminalPhase(w.kube.statusOf(uid).phase)
		}
		if terminal && !w.ask(model.IsPodTerminationRequested, uid) {
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
		w.mark(MarkAdmissionRejected)
		return
	}
	var all []types.UID
	for _, other := range w.sortedUIDs() {
		if q := w.pods[other]; other != uid && q.inConfig && (q.admitted || q.rejected) {
			all = append(all, other)
		}
	}
	if !w.fits(uid, all) {
		w.mark(MarkAdmittedAfterRelease)
	}
}

// fits: the candidate's requests plus the counted pods' fit the node.
func (w *World) fits(uid types.UID, counted []types.UID) bool {
	n := w.kube.node
	cpu, mem := w.pods[uid].action.CPU, w.pods[uid].action.Mem
	for _, c := range counted {
		cpu, mem = cpu+w.pods[c].action.CPU, mem+w.pods[c].action.Mem
	}
	return (n.CPU == 0 || cpu <= n.CPU) && (n.Mem == 0 || mem <= n.Mem)
}

// statusLoop is the status manager's goroutine: like daemonLoop, but its
// ticks run outside the sync loop (only the echoes it delivers are config
// changes), and it stops with the other daemons when the world quiesces.
func (w *World) statusLoop() {
	for {
		w.S.Sleep(StatusSyncPeriod)
		if w.quiescing {
			if w.daemons--; w.daemons == 0 {
				w.daemonsDone.Fire()
			}
			return
		}
		w.statusTick()
	}
}

// statusTick is one pass of the status manager: for every pod in the API,
// write the kubelet's phase (a terminal one only once the pod can have no
// running containers, #108366), then delete a deleted pod once
// SyncTerminatedPod finished it (#115331), with the UID as precondition.
// API changes reach the config source after the echo lag (deliverEchoes,
// in the sync loop).
func (w *World) statusTick() {
	epoch := w.epoch
	for _, uid := range w.sortedUIDs() {
		if !w.syncStatus(uid) || w.epoch != epoch {
			break // the kubelet restarted under us: its status manager is gone
		}
	}
	w.iteration(w.deliverEchoes)
}

// syncStatus writes uid's status; false if the tick must stop.
func (w *World) syncStatus(uid types.UID) bool {
	p, k := w.pods[uid], w.kube
	if !p.inAPI {
		return true
	}
	st := k.statusOf(uid)
	if st.phase != "" && st.phase != p.apiPhase && !terminalPhase(p.apiPhase) {
		epoch := w.epoch
		if terminalPhase(st.phase) && !w.Bugs.B10StatusIgnoresRunning && w.ask(model.CouldHaveRunningContainers, uid) {
			w.mark(MarkTerminalWriteDeferred)
			return w.epoch == epoch
		}
		if w.epoch != epoch {
			return false
		}
		k.check.phaseWritten(w, uid, st.phase)
		p.apiPhase = st.phase
		w.echoLater(p)
	}
	if p.deletion != nil && terminalPhase(p.apiPhase) && st.finished {
		k.check.deleted(w, uid)
		if p.rejected {
			w.mark(MarkRejectedDeletedGone)
		}
		if w.epoch > 0 && p.deletedAt < w.restartedAt {
			w.mark(MarkRestartDeletedGone)
		}
		p.inAPI = false
		w.echoLater(p)
	}
	return true
}

func (w *World) echoLater(p *configPod) {
	if !p.echoDue {
		p.echoDue, p.echoAt = true, w.S.Elapsed()+w.kube.node.EchoLag
	}
}

// deliverEchoes is the config watch: API changes older than the echo lag
// arrive as UPDATE (a new phase) or REMOVE (the pod was deleted).
func (w *World) deliverEchoes() {
	for _, uid := range w.sortedUIDs() {
		p := w.pods[uid]
		if !p.echoDue || p.echoAt > w.S.Elapsed() {
			continue
		}
		p.echoDue = false
		switch {
		case !p.inAPI && p.inConfig:
			p.inConfig = false
			w.update(workers.SyncPodKill, uid, nil)
		case p.apiPhase != p.phase && p.inConfig:
			p.phase, p.version = p.apiPhase, p.version+1
			if p.admitted {
				w.update(workers.SyncPodUpdate, uid, nil)
			}
		}
	}
}

// callBegan: a SyncPod or SyncTerminatingPod begins only in an incarnation
// that has not terminated, so whatever the status manager and the checks
// knew of a finished earlier incarnation of the UID is void.
func (k *kubelet) callBegan(w *World, fn model.SyncFn, uid types.UID) {
	if fn == model.SyncPod || fn == model.SyncTerminatingPod {
		k.statusOf(uid).finished = false
		k.check.cleanedUp[uid] = false
	}
	if fn == model.SyncPod {
		k.check.syncPodBegins(w, uid)
	}
}

// callEnded is the status manager's side of a sync callback's end (the
// kubelet's SyncPod and SyncTerminatedPod call it): natural completion
// sets Succeeded; a finished pod is terminal (Failed unless something set
// a terminal phase) and may be deleted from the API.
func (k *kubelet) callEnded(fn model.SyncFn, uid types.UID, err error, isTerminal bool) {
	if err != nil {
		return
	}
	st := k.statusOf(uid)
	switch {
	case fn == model.SyncPod && isTerminal:
		st.phase = v1.PodSucceeded
	case fn == model.SyncPod:
		if !terminalPhase(st.phase) {
			st.phase = v1.PodRunning
		}
	case fn == model.SyncTerminatedPod:
		if !terminalPhase(st.phase) {
			st.phase = v1.PodFailed
		}
		st.finished = true
		k.check.cleanedUp[uid] = true
	}
}

// statusFnApplied: SyncTerminatingPod succeeded with a kill's status
// function (eviction, node shutdown), which edits the status it publishes.
func (k *kubelet) statusFnApplied(uid types.UID, fn workers.PodStatusFunc) {
	st := k.statusOf(uid)
	s := v1.PodStatus{Phase: st.phase}
	if s.Phase == "" {
		s.Phase = v1.PodRunning
	}
	fn(&s)
	st.phase = s.Phase
}

// housekeepingExtras is the rest of HandlePodCleanups after SyncKnownPods
// (SPEC §1.12): restart the active pods the workers no longer know (K4),
// kill the terminal deleted pods they do not know (filterTerminalPodsToDelete,
// B13) and the pods only the runtime knows (RunningPod, grace 1).
func (w *World) housekeepingExtras(desired []*v1.Pod, known map[types.UID]workers.PodWorkerSync) {
	for _, pod := range desired {
		p := w.pods[pod.UID]
		if _, ok := known[pod.UID]; ok || !p.admitted {
			continue
		}
		if w.restartable(pod.UID) {
			if w.kube != nil {
				w.kube.check.restarted(w, pod.UID)
			}
			w.updatePod(workers.UpdatePodOptions{UpdateType: workers.SyncPodCreate, Pod: pod}, 0)
		}
	}
	if !w.Bugs.B13NoTerminalDeleteFilter {
		for _, pod := range desired {
			p := w.pods[pod.UID]
			if _, ok := known[pod.UID]; ok || p.deletion == nil || !terminalPhase(p.phase) || w.Runtime.Running(pod.UID) > 0 {
				continue
			}
			w.updatePod(workers.UpdatePodOptions{UpdateType: workers.SyncPodKill, Pod: pod}, 0)
		}
	}
	w.killRuntimeOnlyPods(known)
}

// restartable: the pod is active for the restart loop: not rejected at
// admission and not terminal in config. Upstream's filterOutInactivePods
// also reads the status manager's phase; we leave that out here, because
// after a static pod's same-UID re-add it may still hold the old
// incarnation's terminal phase, which would block the restart L4 owes.
func (w *World) restartable(uid types.UID) bool {
	p := w.pods[uid]
	return !p.rejected && !terminalPhase(p.phase)
}

// killRuntimeOnlyPods kills, with grace 1, every pod the runtime runs that
// is neither in config nor syncing or terminating in the workers (a pod
// left over from before a kubelet restart).
func (w *World) killRuntimeOnlyPods(known map[types.UID]workers.PodWorkerSync) {
	one := int64(1)
	for _, uid := range w.Runtime.RunningUIDs() {
		if r, ok := known[uid]; ok && r.State != workers.TerminatedPodWork {
			continue
		}
		if p := w.pods[uid]; p != nil && p.inConfig {
			continue
		}
		w.updatePod(workers.UpdatePodOptions{UpdateType: workers.SyncPodKill,
			RunningPod:     &workers.RunningPod{ID: uid, Name: "pod-" + string(uid), Namespace: "default"},
			KillPodOptions: &workers.KillPodOptions{PodTerminationGracePeriodSecondsOverride: &one}}, 0)
	}
}

// String names the bugs that are on, "none" if none is.
func (b KubeletBugs) String() string {
	var on []string
	for _, f := range []struct {
		name string
		on   bool
	}{{"B4ShutdownKeepsPhase", b.B4ShutdownKeepsPhase}, {"B5AdmitCountsRejected", b.B5AdmitCountsRejected},
		{"B10StatusIgnoresRunning", b.B10StatusIgnoresRunning}, {"B13NoTerminalDeleteFilter", b.B13NoTerminalDeleteFilter}} {
		if f.on {
			on = append(on, f.name)
		}
	}
	if len(on) == 0 {
		return "none"
	}
	return strings.Join(on, ",")
}
