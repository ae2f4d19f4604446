package baseline

import (
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/oracle"
	"github.com/podsim/podsim/oracle/kubelet"
	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/workers"
	"github.com/podsim/podsim/world"
)

// The kubelet layer of the baseline (issue 7's K rows): when a plan has a
// Node, the real-runtime baseline puts a kubelet in front of the pod
// workers, as the World does (kubelet.go, admission.go, status.go,
// shutdown.go, eviction.go), so that the K mutants (KubeletBugs) have
// something to break: admission with resource accounting, the status
// manager and the API server with its watch echo, housekeeping's extra
// kills, the eviction manager and the node shutdown manager. It runs on
// real goroutines and locks: the config source, admission and
// housekeeping under the sync-loop lock (baseWorld.loop), the status
// manager and the actors (evictions, the shutdown) in goroutines of their
// own. Kubelet restarts (the Restart action) are not modelled here: a
// restart needs fresh pod workers over the same runtime, which is the
// simulated World's business; the baseline skips them, as realkubelet does.
//
// Locks: loop, then mu; mu is never held while calling the pod workers.

// baseKubelet is the kubelet's memory besides the pod workers, guarded by
// baseWorld.mu.
type baseKubelet struct {
	node *plan.Node
	bugs world.KubeletBugs
	// status is the status manager's cache (the World's PodStatus).
	status map[types.UID]*world.PodStatus
	// shuttingDown: the node shutdown began; admission is closed.
	shuttingDown bool
	// api is the API server's names and grace reaper (mutants_baseline_reaper_test.go).
	api baseAPI
}

func newBaseKubelet(node *plan.Node, bugs world.KubeletBugs) *baseKubelet {
	return &baseKubelet{node: node, bugs: bugs, status: map[types.UID]*world.PodStatus{}}
}

// statusOf is uid's status manager record, made on first use; the caller
// holds mu.
func (k *baseKubelet) statusOf(uid types.UID) *world.PodStatus { return world.StatusIn(k.status, uid) }

// terminalPhase: the pod's containers are done for good.
func terminalPhase(p v1.PodPhase) bool { return p == v1.PodSucceeded || p == v1.PodFailed }

// podFor is uid's config record, made on first use; the caller holds mu.
func (w *baseWorld) podFor(a plan.Action) *basePod {
	p := w.pods[a.UID]
	if p == nil {
		p = &basePod{action: a, phase: v1.PodRunning}
		w.pods[a.UID] = p
	}
	return p
}

// kubeDo is do with the kubelet in front of the pod workers (World.do with
// a Node): only admitted pods reach the workers through config changes and
// kills; a REMOVE of a pod the kubelet added, admitted or not, still sends
// its kill; a static pod has no API object to delete.
func (w *baseWorld) kubeDo(a plan.Action) {
	if a.Kind == plan.Create {
		w.kubeCreate(a)
		return
	}
	_, known := w.pw.PodState(a.UID)
	w.mu.Lock()
	p := w.podFor(a)
	toWorkers := p.admitted
	// A re-ADD in the shutdown is rejected unless its termination is
	// requested: asked only then, and the condition checked again after.
	if w.reAddInShutdown(a, p) && !w.askUnlocked(a.UID) && w.reAddInShutdown(a, p) {
		toWorkers = false
	}
	o := workers.UpdatePodOptions{UpdateType: workers.SyncPodUpdate}
	grace := int64(-1)
	switch a.Kind {
	case plan.Update:
		p.version++
	case plan.Finish:
		p.version, p.phase = p.version+1, v1.PodPhase(a.Terminal)
		if p.inAPI {
			p.apiPhase = p.phase
		}
	case plan.Sync:
		o.UpdateType = workers.SyncPodSync
	case plan.Query:
		o.UpdateType, toWorkers = workers.SyncPodSync, true
	case plan.Delete:
		if p.action.Static || (w.kube.node.UniqueNames && !p.inAPI) {
			w.mu.Unlock()
			return // no API object to delete (NotFound)
		}
		g := max(a.Grace, 0)
		p.version, p.deletion, grace = p.version+1, &g, g
		w.apiDeleted(p, g)
	case plan.Remove, plan.Vanish:
		p.inConfig, p.inAPI, o.UpdateType = false, false, workers.SyncPodKill
		w.leftAPI(p)
		toWorkers = a.Kind == plan.Remove && (p.admitted || p.rejected)
	case plan.Kill, plan.KillNow, plan.RuntimeKill:
		grace = killOptions(a, &o)
		// As the world: housekeeping kills a runtime-only pod only if no
		// pod in config has its UID.
		toWorkers = toWorkers && !(a.Kind == plan.RuntimeKill && p.inConfig)
	}
	if a.Kind != plan.Sync && a.Kind != plan.Query && a.Kind != plan.Update {
		delete(w.restart, a.UID)
	}
	if !toWorkers {
		w.mu.Unlock()
		return
	}
	if !known && a.Kind != plan.Query {
		p.incarnation++
	}
	o.Pod = w.podOf(a.UID)
	w.registerKill(a, &o)
	w.mu.Unlock()
	if !known && a.Kind != plan.Query {
		w.syncer.newIncarnation(a.UID)
	}
	w.deliver(a, o, grace)
}

// reAddInShutdown: a is a config change of pod p out of config during the
// node shutdown, an ADD that admission rejects unless the pod workers hold
// p's termination (the world's reAddRejected); the caller holds mu.
func (w *baseWorld) reAddInShutdown(a plan.Action, p *basePod) bool {
	change := a.Kind == plan.Update || a.Kind == plan.Sync || a.Kind == plan.Delete
	return change && !p.inConfig && w.kube.shuttingDown && !terminalPhase(p.phase)
}

// askUnlocked is IsPodTerminationRequested(uid) asked with mu let go and
// taken again, as mu is never held while calling the pod workers. Asked
// only for a re-ADD in the shutdown, never for an ordinary change: an
// extra lock of the pod workers on every update would perturb the races
// the baseline measures. The caller checks again after it, since the pod
// may have changed while mu was free.
func (w *baseWorld) askUnlocked(uid types.UID) bool {
	w.mu.Unlock()
	defer w.mu.Lock()
	return w.pw.IsPodTerminationRequested(uid)
}

// kubeCreate is the config source's ADD (World.add): a pod not in config
// is a new pod object and goes through admission; an ADD of a pod in
// config is merged into an UPDATE.
func (w *baseWorld) kubeCreate(a plan.Action) {
	if w.apiRefusesCreate(a) {
		return
	}
	requested := w.pw.IsPodTerminationRequested(a.UID)
	_, known := w.pw.PodState(a.UID)
	w.mu.Lock()
	p := w.podFor(a)
	fresh := !p.inConfig
	p.inConfig, p.version = true, p.version+1
	if fresh {
		w.freshAdd(p)
	}
	w.mu.Unlock()
	if fresh && !w.admit(a.UID) {
		return
	}
	w.mu.Lock()
	if !p.admitted {
		w.mu.Unlock()
		return // an UPDATE of a rejected pod stays local
	}
	o := workers.UpdatePodOptions{UpdateType: workers.SyncPodUpdate}
	if fresh {
		o.UpdateType, w.restart[a.UID] = workers.SyncPodCreate, requested
	}
	if !known {
		p.incarnation++
	}
	o.Pod = w.podOf(a.UID)
	w.mu.Unlock()
	if !known {
		w.syncer.newIncarnation(a.UID)
	}
	w.pw.UpdatePod(o)
}

// freshAdd resets what a new pod object under a reused UID does not carry
// over (World.add); the caller holds mu.
func (w *baseWorld) freshAdd(p *basePod) {
	k, uid := w.kube, p.action.UID
	p.rejected, p.phase, p.killedByShutdown = false, v1.PodRunning, false
	delete(k.status, uid)
	p.incarnation++
	p.object++
	if k.node.APIServer && !p.action.Static {
		p.deletion, p.apiPhase, p.echoDue, p.inAPI = nil, "", false, true
	}
	if !p.added {
		p.added, p.addedInShutdown = true, k.shuttingDown
	}
}

// admit is the admission decision (World.admit), made under the sync-loop
// lock: a pod already decided keeps its decision, a pod terminal in config
// skips admission, a node shutting down rejects everything, else the pod
// must fit next to the active pods. K1 judges the decision against views
// of every pod taken just before and just after it.
func (w *baseWorld) admit(uid types.UID) bool {
	w.mu.Lock()
	p, k := w.pods[uid], w.kube
	switch {
	case p.rejected:
		w.mu.Unlock()
		return false
	case p.admitted || terminalPhase(p.phase):
		p.admitted = true
		w.mu.Unlock()
		return true
	case k.shuttingDown:
		p.rejected, k.statusOf(uid).Phase = true, v1.PodFailed
		w.mu.Unlock()
		return false
	}
	w.mu.Unlock()
	start := w.admissionViews()
	counted := w.activePods(uid)
	end := w.admissionViews()
	w.mu.Lock()
	defer w.mu.Unlock()
	ok := w.fits(uid, counted)
	w.checkAdmission(uid, counted, start, end)
	if ok {
		p.admitted = true
	} else {
		p.rejected, k.statusOf(uid).Phase = true, v1.PodFailed
	}
	return ok
}

// activePods is GetActivePods without except (World.activePods): the pods
// in config the kubelet added, not known terminated, and not terminal in
// config or in the status manager (B5: in config only) unless their
// termination is requested. The caller holds loop, not mu.
func (w *baseWorld) activePods(except types.UID) []types.UID {
	type candidate struct {
		uid      types.UID
		terminal bool
	}
	var cands []candidate
	w.mu.Lock()
	for _, uid := range sortedUIDsOf(w.pods) {
		p := w.pods[uid]
		if uid == except || !p.inConfig || !(p.admitted || p.rejected) {
			continue
		}
		terminal := terminalPhase(p.phase)
		if !w.kube.bugs.B5AdmitCountsRejected {
			terminal = terminal || terminalPhase(w.kube.statusOf(uid).Phase)
		}
		cands = append(cands, candidate{uid, terminal})
	}
	w.mu.Unlock()
	var out []types.UID
	for _, c := range cands {
		if w.pw.IsPodKnownTerminated(c.uid) || (c.terminal && !w.pw.IsPodTerminationRequested(c.uid)) {
			continue
		}
		out = append(out, c.uid)
	}
	return out
}

// admissionViews is what K1 reads of every pod: the two query answers its
// rule needs, then the pod's terminal phases. The caller holds loop, not mu.
func (w *baseWorld) admissionViews() map[types.UID]kubelet.AdmissionView {
	w.mu.Lock()
	uids := sortedUIDsOf(w.pods)
	w.mu.Unlock()
	out := map[types.UID]kubelet.AdmissionView{}
	for _, uid := range uids {
		v := kubelet.AdmissionView{Answers: oracle.Answers{KnownTerminated: w.pw.IsPodKnownTerminated(uid),
			TerminationRequested: w.pw.IsPodTerminationRequested(uid)}}
		w.mu.Lock()
		v.Terminal = terminalPhase(w.pods[uid].phase) || terminalPhase(w.kube.statusOf(uid).Phase)
		w.mu.Unlock()
		out[uid] = v
	}
	return out
}

// fits: the candidate's requests plus the counted pods' fit the node; the
// caller holds mu.
func (w *baseWorld) fits(uid types.UID, counted []types.UID) bool {
	cpu, mem := w.pods[uid].action.CPU, w.pods[uid].action.Mem
	for _, c := range counted {
		cpu, mem = cpu+w.pods[c].action.CPU, mem+w.pods[c].action.Mem
	}
	return w.kube.node.Fits(cpu, mem)
}

// syncAllowed: the sync loop syncs a pod in config only if it was admitted,
// or while the workers still hold the termination of an earlier pod object
// under its UID (World.syncDue).
func (w *baseWorld) syncAllowed(uid types.UID) bool {
	w.mu.Lock()
	admitted := w.pods[uid].admitted
	w.mu.Unlock()
	return admitted || w.pw.IsPodTerminationRequested(uid)
}

// kubeHousekeeping is the rest of HandlePodCleanups after SyncKnownPods
// (World.housekeepingExtras): re-create the active pods the workers no
// longer know, kill the terminal deleted pods they do not know (unless
// B13) and the pods only the runtime runs. The caller holds loop.
func (w *baseWorld) kubeHousekeeping(desired []*v1.Pod, known workers.KnownPods) {
	var sends []workers.UpdatePodOptions
	w.mu.Lock()
	for _, pod := range desired {
		p := w.pods[pod.UID]
		if _, ok := known.Get(pod.UID); ok {
			continue
		}
		switch {
		case p.admitted && !p.rejected && !terminalPhase(p.phase):
			sends = append(sends, workers.UpdatePodOptions{UpdateType: workers.SyncPodCreate, Pod: pod})
		case !w.kube.bugs.B13NoTerminalDeleteFilter && p.deletion != nil && terminalPhase(p.phase) && !w.syncer.runs(pod.UID):
			sends = append(sends, workers.UpdatePodOptions{UpdateType: workers.SyncPodKill, Pod: pod})
		}
	}
	one := int64(1)
	for _, uid := range w.syncer.runningUIDs() {
		r, ok := known.Get(uid)
		if (ok && r.State != workers.TerminatedPodWork) || (w.pods[uid] != nil && w.pods[uid].inConfig) {
			continue
		}
		sends = append(sends, workers.UpdatePodOptions{UpdateType: workers.SyncPodKill,
			RunningPod:     &workers.RunningPod{ID: uid, Name: "pod-" + string(uid), Namespace: "default"},
			KillPodOptions: &workers.KillPodOptions{PodTerminationGracePeriodSecondsOverride: &one}})
	}
	w.mu.Unlock()
	for _, o := range sends {
		w.updatePod(o)
	}
}

// updatePod is UpdatePod for the kubelet's own sends (housekeeping, the
// config watch's echoes).
func (w *baseWorld) updatePod(o workers.UpdatePodOptions) {
	var uid types.UID
	if o.Pod != nil {
		uid = o.Pod.UID
	} else {
		uid = o.RunningPod.ID
	}
	w.newRecordIfUnknown(uid)
	w.pw.UpdatePod(o)
}

// newRecordIfUnknown: an update of a UID the pod workers do not know (never
// seen, or purged) makes a new record, whose calls and graces start afresh
// and which voids a status write decided for the old one. Purges happen
// under the sync-loop lock, so a caller holding it sees the record the
// update will reach.
func (w *baseWorld) newRecordIfUnknown(uid types.UID) {
	if _, known := w.pw.PodState(uid); known {
		return
	}
	w.mu.Lock()
	if p := w.pods[uid]; p != nil {
		p.incarnation++
	}
	w.mu.Unlock()
	w.syncer.newIncarnation(uid)
}

// runs: the fake runtime has containers of uid running.
func (s *baseSyncer) runs(uid types.UID) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.running[uid] > 0
}

// runningUIDs lists the pods with running containers, sorted.
func (s *baseSyncer) runningUIDs() []types.UID {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []types.UID
	for _, uid := range sortedUIDsOf(s.running) {
		if s.running[uid] > 0 {
			out = append(out, uid)
		}
	}
	return out
}
