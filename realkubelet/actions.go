package realkubelet

import (
	"slices"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/kubernetes/pkg/kubelet"
	kubetypes "k8s.io/kubernetes/pkg/kubelet/types"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/model/ops"
	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/realkubelet/components"
	"github.com/podsim/podsim/realkubelet/explain"
	"github.com/podsim/podsim/realkubelet/k5class"
	"github.com/podsim/podsim/realkubelet/planted"
	"github.com/podsim/podsim/realkubelet/status"
	"github.com/podsim/podsim/realkubelet/tape"
)

// configPod is the config source's view of one pod (as in package world's
// World, restated here because the real workers take kubelet types).
type configPod struct {
	action   plan.Action // the shape it was created with
	version  int
	inConfig bool
	// created orders the pods by creation (a restart re-admits oldest
	// first).
	created  int
	deletion *int64
	phase    v1.PodPhase
}

// action performs one plan action the way world.World does, on the
// real pod workers.
func (d *Driver) action(a plan.Action) {
	if a.UID != "" {
		d.universe[a.UID] = true
	}
	p := d.pods[a.UID]
	if p == nil && a.UID != "" {
		p = &configPod{action: a, phase: v1.PodRunning}
		d.pods[a.UID] = p
	}
	if d.st != nil {
		if d.st.Before(a, p != nil && p.action.Static, p != nil && p.inConfig) {
			return
		}
		defer d.st.After(a)
	}
	switch a.Kind {
	case plan.Create:
		d.configAdd(p, a.UID)
	case plan.Update:
		p.version++
		d.configUpdate(kubetypes.SyncPodUpdate, a.UID)
	case plan.Sync:
		d.configUpdate(kubetypes.SyncPodSync, a.UID)
	case plan.Delete:
		p.version++
		g := max(a.Grace, 0)
		p.deletion = &g
		d.configUpdate(kubetypes.SyncPodUpdate, a.UID)
	case plan.Remove:
		d.configRemove(p, a.UID)
	case plan.Vanish:
		p.inConfig = false
	case plan.Kill:
		d.kill(a, false)
	case plan.KillNow:
		d.kill(a, true)
	case plan.RuntimeKill:
		// Housekeeping kills runtime pods the pod workers do not know
		// (runtimekill.go): dropped for a UID they know.
		if !d.runtimeKillDropped(a.UID) {
			d.runtimeKill(a.UID)
		}
	case plan.Finish:
		p.version++
		p.phase = v1.PodPhase(a.Terminal)
		d.configUpdate(kubetypes.SyncPodUpdate, a.UID)
	case plan.SyncKnown:
		d.housekeeping()
	case plan.Query:
		d.query(a.UID)
	case plan.Evict:
		if d.opts.Real.On(components.Eviction) {
			d.actors.EvictCycle(a.UID) // the real eviction manager (package actors)
			break
		}
		// Switched off: the eviction manager's killPodNow(evict=true),
		// without the manager's own pod selection (doc.go, "Per family").
		a.Evict = true
		d.kill(a, true)
	case plan.Restart:
		if d.opts.Real.On(components.Restart) {
			d.restartKubelet() // restart.go
		}
		// Off: skipped, the same pod workers go on (doc.go, "Per family").
	case plan.Shutdown, plan.ShutdownCancel:
		// With the shutdown component on, Apply starts the real node
		// shutdown manager or cancels its shutdown instead (package
		// actors); off, the pod workers alone are driven (doc.go, "Per
		// family").
	}
}

// configAdd is a Create from the config source: an ADD of a pod config
// has is an UPDATE, with no admission; a fresh one is admitted first. A
// fresh ADD is a new pod object, also under a reused UID: nothing of the
// old object's phase carries over, nor, with the API server (the status
// component, which has just created the object anew), its deletion — as
// package world's addWith has it. Before, a re-created API pod kept the
// terminal phase of a Finish made while it was out of config and the API,
// so config said Failed while the new object said Pending (api-shapes,
// a guided run in hold mode: a P5 no deviation explained).
func (d *Driver) configAdd(p *configPod, uid types.UID) {
	fresh := !p.inConfig
	if fresh {
		d.created++
		p.created = d.created
		p.phase = v1.PodRunning
		if d.st != nil && !p.action.Static {
			p.deletion = nil
		}
	}
	p.inConfig, p.version = true, p.version+1
	if !fresh {
		d.update(kubetypes.SyncPodCreate, uid)
		return
	}
	skip := d.k5.Admitting(uid, d.actors.ShutdownBegun(), func() bool { return d.pw.IsPodTerminationRequested(uid) })
	if d.admit(uid, skip) {
		d.update(kubetypes.SyncPodCreate, uid)
	}
}

// admit is the kubelet's admission of uid (actors.Actors.Admit), with
// the evidence K5's classes read of it (k5class): what it skipped for
// (s) and whether the manager had heard of a shutdown in force.
func (d *Driver) admit(uid types.UID, s k5class.Skip) bool {
	admitted := d.actors.Admit(uid)
	d.k5.Admitted(uid, admitted, s, d.actors.Unheard())
	return admitted
}

// configRemove is a Remove from the config source: a kill, noted for
// admission (actors.Actors.NoteRemove).
func (d *Driver) configRemove(p *configPod, uid types.UID) {
	inConfig, requested := p.inConfig, d.pw.IsPodTerminationRequested(uid)
	p.inConfig = false
	d.update(kubetypes.SyncPodKill, uid)
	d.actors.NoteRemove(uid, inConfig, requested)
}

// configUpdate is an update, sync, delete or finish of a pod. A pod that
// an earlier kubelet process added and that left config before the
// restart was never added by this process: its update does not reach the
// pod workers, as in the simulated world (world/actions.go, toWorkers:
// only a pod the current process admitted). Upstream's config merge would
// turn it into an ADD, with admission, putting the pod back in config; the
// plan's update leaves config as it is. A pod removed from config by the
// process that added it is still updated (the world does too), and so is
// a pod no process ever added: the scripts' bare update, the pod-worker
// contract's input (G1's script begins with one), as a remove of a pod out
// of config is a bare kill (actors.NoteRemove).
//
// During a node shutdown, an update of a pod out of config that the
// process did add is dropped too: upstream's config merge makes it an ADD,
// which the shutdown manager's Admit rejects, so it never reaches the pod
// workers (swarm seed 9,056: the update started a pod during the
// shutdown, K5). The rejection's other effects (the pod back in config,
// its Failed status) are not modelled, as the plan's update leaves config
// as it is.
// The simulated world drops the same change (world's reAddRejected, and
// conform's P1 checks it).
func (d *Driver) configUpdate(t kubetypes.SyncPodType, uid types.UID) {
	if d.addedBefore(uid) {
		return
	}
	if _, added := d.actors.FirstAddAt[uid]; added && !d.pods[uid].inConfig && d.actors.Rejects(uid) {
		return
	}
	d.update(t, uid)
}

// addedBefore: an earlier kubelet process added uid and this one has not
// (it left config before the restart).
func (d *Driver) addedBefore(uid types.UID) bool {
	_, added := d.actors.FirstAddAt[uid]
	return added && !d.actors.Admitted[uid]
}

func (d *Driver) update(t kubetypes.SyncPodType, uid types.UID) {
	if d.actors.Rejected[uid] && t != kubetypes.SyncPodKill {
		return // a pod rejected at admission reaches the workers by its REMOVE only
	}
	d.updatePod(kubelet.UpdatePodOptions{UpdateType: t, Pod: d.podOf(uid)}, 0, "driver")
}

// updatePod is UpdatePod, recorded; fires it causes are recorded inside it.
func (d *Driver) updatePod(o kubelet.UpdatePodOptions, completionID int, goroutine string) {
	mu := tape.UpdatePod(o, completionID)
	if o.Pod != nil && d.cache.Running[o.Pod.UID] {
		mu.Cache = ops.CacheBusy // what the cache tells UpdatePod (Cache.Get)
	}
	d.lastUpdate[types.UID(mu.Pod.UID)] = d.Step
	id := d.h.Call(goroutine, mu)
	uid := types.UID(mu.Pod.UID)
	if o.UpdateType == kubetypes.SyncPodKill {
		delete(d.actors.BareKilled, uid) // a remove's own is noted after it (noteRemove)
	}
	if o.UpdateType == kubetypes.SyncPodCreate && o.Pod != nil && d.pw.IsPodTerminationRequested(uid) && !d.pw.ShouldPodBeFinished(uid) {
		d.restartPending[uid] = true
	}
	watch := d.terminatingInFlight(uid)
	d.noteOffers(o)
	d.k5.NoteKill(uid, o)
	kind := o.UpdateType
	if d.plantFires(planted.LostKill, o) {
		o = kubelet.UpdatePodOptions{} // recorded, never sent
	} else {
		d.pw.UpdatePod(d.ctx, o)
		d.records[uid] = true // UpdatePod makes one if there was none
	}
	d.checkKillRequests(kind, uid)
	d.checkCancelReason(watch, o)
	d.pollFires()
	d.h.Ret(goroutine, id, nil)
}

// kill sends a kill with options; withWait adds killPodNow's wait for the
// completion (timeout max(10 s, 1.5 × grace), grace = override or spec).
// The kubelet's killers act on the pods it admitted: a pod rejected at
// admission, or one an earlier process added that left config before the
// restart (addedBefore), gets none, as in the simulated world
// (world/actions.go, toWorkers). Housekeeping's runtime-only kill is not
// one of these: it kills what the runtime runs (runtimeKill).
func (d *Driver) kill(a plan.Action, withWait bool) {
	if d.actors.Rejected[a.UID] || d.addedBefore(a.UID) {
		return
	}
	if a.Evict {
		d.evicted[a.UID] = true
	}
	before := d.answersOf(a.UID)
	c := &completion{id: d.deadCompletions + len(d.completions) + 1, uid: a.UID, ch: make(chan struct{}), step: d.Step,
		finishedBefore: before[explain.BeFinished] && before != explain.UnknownAfterSync}
	d.completions = append(d.completions, c)
	decoy := d.plantFires(planted.DecoyCompletion, kubelet.UpdatePodOptions{Pod: d.podOf(a.UID), UpdateType: kubetypes.SyncPodKill})
	if withWait {
		// The real killPodNow (killnow.go); its kill is recorded from the
		// driver like every other call (the driver holds the recorder's
		// pod lock, so it takes effect at its call), its wait in a
		// goroutine of its own.
		d.killNow(a, c, decoy)
		return
	}
	ko := &kubelet.KillPodOptions{Evict: a.Evict, CompletedCh: c.ch}
	if decoy {
		ko.CompletedCh = make(chan struct{})
	}
	if a.Grace >= 0 {
		g := a.Grace
		ko.PodTerminationGracePeriodSecondsOverride = &g
	}
	d.updatePod(kubelet.UpdatePodOptions{UpdateType: kubetypes.SyncPodKill, Pod: d.podOf(a.UID), KillPodOptions: ko}, c.id, "driver")
}

// housekeeping is HandlePodCleanups' pod-worker part (runtimekill.go has
// its steps): SyncKnownPods with the pods in config, a create for each
// active pod it no longer knows, a kill for each deleted terminal pod it
// does not know (with the status component), and a runtime-only kill for
// each pod the runtime runs that it does not know.
func (d *Driver) housekeeping() {
	desired := d.desired()
	in := ops.SyncKnownPods{Desired: []string{}}
	for _, pod := range desired {
		in.Desired = append(in.Desired, string(pod.UID))
	}
	id := d.h.Call("driver", in)
	known := d.pw.SyncKnownPods(quietLogger(), desired)
	d.synced = true
	d.pollFires()
	d.h.Ret("driver", id, tape.KnownPods(known))
	d.checkPurged(known)
	d.noteRecords(known)
	for _, uid := range d.sortedUniverse() {
		if _, ok := known[uid]; !ok {
			d.incarnationOver(uid) // no record: the next update starts a new one
			if d.st != nil {
				d.st.RecordGone(uid)
			}
			delete(d.actors.BareKilled, uid)
		}
	}
	for _, pod := range desired {
		if _, ok := known[pod.UID]; !ok && d.restartable(pod) {
			d.updatePod(kubelet.UpdatePodOptions{UpdateType: kubetypes.SyncPodCreate, Pod: pod}, 0, "driver")
		}
	}
	if d.st != nil {
		d.killTerminalDeleted(known)
	}
	d.killRuntimeOnly()
	if d.st != nil {
		d.st.Manager().RemoveOrphaned()
	}
}

// killTerminalDeleted is HandlePodCleanups' step for pods in config that
// are deleted and terminal (their phase as the API has it) but unknown to
// the pod workers and not running in the runtime — a pod rejected at
// admission, then deleted: a kill hands it to the workers, whose finish
// lets the status manager delete it (filterTerminalPodsToDelete, a
// *Kubelet method, restated). Only with the status component: without it
// nothing ever deletes from the API.
func (d *Driver) killTerminalDeleted(known map[types.UID]kubelet.PodWorkerSync) {
	for _, uid := range d.sortedUniverse() {
		p := d.pods[uid]
		if p == nil || !p.inConfig || p.deletion == nil || !status.TerminalPhase(p.phase) || d.running[uid] {
			continue
		}
		if _, ok := known[uid]; ok {
			continue
		}
		d.updatePod(kubelet.UpdatePodOptions{UpdateType: kubetypes.SyncPodKill, Pod: d.podOf(uid)}, 0, "driver")
	}
}

// tick turns the work queue into UpdatePod(sync) for pods still in config
// (getPodsToSync: the pod manager's pods with due work). A pod rejected at
// admission is among them (the pod manager keeps it), so a retry its
// worker queued (a worker that outlived the pod's exit from config and
// its rejection) reaches the workers: swarm-restart seed 7721, L1.
func (d *Driver) tick() {
	for _, uid := range d.gates.TakeQueued() {
		if p := d.pods[uid]; p != nil && p.inConfig {
			d.updatePod(kubelet.UpdatePodOptions{UpdateType: kubetypes.SyncPodSync, Pod: d.podOf(uid)}, 0, "driver")
		} else if d.lastFailed[uid] {
			d.ev.DroppedRetry[uid] = true // getPodsToSync drops it (GD)
		}
	}
}

// queryFns are the seven UID queries in ops.QueryKind order.
func (d *Driver) queryFns() []func(types.UID) bool {
	pw := d.pw
	return []func(types.UID) bool{pw.IsPodKnownTerminated, pw.CouldHaveRunningContainers,
		pw.ShouldPodBeFinished, pw.IsPodTerminationRequested, pw.ShouldPodContainersBeTerminating,
		pw.ShouldPodRuntimeBeRemoved, pw.ShouldPodContentBeRemoved}
}

// query reads every query, recorded, as the subsystems of SPEC §2 do.
func (d *Driver) query(uid types.UID) {
	for kind, q := range d.queryFns() {
		id := d.h.Call("driver", ops.Query{Kind: ops.QueryKind(kind), UID: string(uid)})
		d.h.Ret("driver", id, ops.Answer(q(uid)))
	}
	if p := d.pods[uid]; p != nil && p.action.Static {
		full := d.podOf(uid).Name + "_default"
		id := d.h.Call("driver", ops.Query{Kind: ops.IsPodForMirrorPodTerminatingByFullName, FullName: full})
		d.h.Ret("driver", id, ops.Answer(d.pw.IsPodForMirrorPodTerminatingByFullName(full)))
	}
}

// podOf builds the current config version of uid (history.PodObject, as
// the simulated world does; the action's UID is uid).
func (d *Driver) podOf(uid types.UID) *v1.Pod {
	p := d.pods[uid]
	a := p.action
	a.UID = uid
	pod := history.PodObject(a, p.version, p.phase, p.deletion, time.Now())
	if a.Priority != 0 {
		prio := a.Priority // the node shutdown and eviction managers read it
		pod.Spec.Priority = &prio
	}
	return pod
}

// desired lists the pods in config, sorted by UID.
func (d *Driver) desired() []*v1.Pod {
	var uids []types.UID
	for uid, p := range d.pods {
		if p.inConfig { // rejected pods too: the pod manager has them
			uids = append(uids, uid)
		}
	}
	slices.Sort(uids)
	pods := make([]*v1.Pod, len(uids))
	for i, uid := range uids {
		pods[i] = d.podOf(uid)
	}
	return pods
}
