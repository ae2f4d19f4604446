package world

import (
	"strconv"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/model/ops"
	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/workers"
	"github.com/podsim/podsim/world/shapes"
)

// do performs one plan action as the kubelet's loops would.
func (w *World) do(a plan.Action) {
	w.note(history.ActionBegins{})
	defer w.note(history.ActionDone{})
	p := w.pod(a.UID)
	if w.apiRefuses(a, p) {
		return
	}
	if p == nil && a.UID != "" {
		p = w.newPod(a)
	}
	// With a kubelet (Plan.Node), only admitted pods reach the pod workers
	// through config changes and kills (a pod rejected at admission never
	// does, B13's premise; nor does one the kubelet has not added yet); a
	// REMOVE of a pod it added, admitted or not, still sends its kill.
	toWorkers := p == nil || w.kube == nil || p.admitted
	added := p != nil && (w.kube == nil || p.admitted || p.rejected)
	switch a.Kind {
	case plan.Create:
		fresh := !p.inConfig
		p.inConfig, p.version = true, p.version+1
		if !fresh && w.kube != nil {
			// The kubelet's config merges an ADD of a pod it has into an
			// UPDATE: only a pod that left config is added again.
			w.updateIf(toWorkers, workers.SyncPodUpdate, a.UID)
			break
		}
		w.addWith(a.UID, fresh, a)
	case plan.Update:
		p.version++
		w.updateAs(toWorkers && !w.reAddRejected(p), workers.SyncPodUpdate, a)
	case plan.Sync:
		w.updateAs(toWorkers && !w.reAddRejected(p), workers.SyncPodSync, a)
	case plan.Delete:
		w.delete(a, p, toWorkers)
	case plan.Remove:
		p.inConfig, p.inAPI = false, false
		w.leftAPI(p)
		w.updateIf(added, workers.SyncPodKill, a.UID)
	case plan.Vanish:
		p.inConfig, p.inAPI = false, false
		w.leftAPI(p)
	case plan.Kill, plan.KillNow, plan.RuntimeKill:
		// Housekeeping kills a runtime pod the pod workers do not know
		// (HandlePodCleanups), after making every active pod in config
		// known: with a kubelet, a RuntimeKill of a pod in config is not
		// sent. "In config" approximates "known": a rejected or purged
		// pod in config differs (docs/real-kubelet.md).
		if toWorkers && !(a.Kind == plan.RuntimeKill && w.kube != nil && p.inConfig) {
			w.kill(a)
		}
	case plan.Finish:
		p.version++
		p.phase = v1.PodPhase(a.Terminal)
		if p.inAPI {
			p.apiPhase = p.phase
		}
		w.updateIf(toWorkers, workers.SyncPodUpdate, a.UID)
	case plan.SyncKnown:
		w.housekeeping()
	case plan.Query:
		w.query(a.UID)
	case plan.Evict:
		evict := a // a copy: the closure would move a to the heap in every call
		w.goActor("eviction", func() { w.evict(evict) })
	case plan.Shutdown:
		// The shutdown signal reaches the kubelet process running now: a
		// restart before its actor runs ends it with the old process.
		k, epoch := w.kube, w.epoch
		w.goActor("shutdown", func() { w.shutdown(k, epoch) })
	case plan.ShutdownCancel:
		w.shutdownCancel(w.kube)
	case plan.Restart:
		w.restartKubelet()
	}
}

// delete is a client's graceful delete of p's object: the deletion
// timestamp and grace reach config as an UPDATE; the API server notes the
// request (K6's record) and the grace reaper queues its forced delete. A
// static pod has no API object: deleting its mirror pod changes nothing.
func (w *World) delete(a plan.Action, p *configPod, toWorkers bool) {
	if w.kube != nil && p.action.Static {
		return
	}
	p.version++
	g := max(a.Grace, 0)
	p.deletion = &g
	if p.deletedAt == unset {
		p.deletedAt = w.S.Elapsed()
	}
	if w.kube != nil && w.kube.node.APIServer {
		w.note(history.DeleteRequested{UID: a.UID, Grace: g})
		w.queueReap(p, g)
	}
	w.updateIf(toWorkers && !w.reAddRejected(p), workers.SyncPodUpdate, a.UID)
}

// goActor starts a kubelet actor in a goroutine of its own, named
// kind/<n>: the oracles follow calls by goroutine, so no two goroutines
// alive at once may share a name.
func (w *World) goActor(kind string, f func()) {
	w.actors++
	w.actorsRunning++
	w.S.Go(kind+"/"+strconv.Itoa(w.actors), func() {
		defer func() { w.actorsRunning-- }()
		f()
	})
}

// kill is a Kill, KillNow or RuntimeKill action: the actors behind them
// (eviction, preemption, shutdown, housekeeping) pick from the active or
// running pods, so a pod rejected at admission is never their target.
func (w *World) kill(a plan.Action) {
	switch a.Kind {
	case plan.Kill:
		ko, id := w.completedKillOptions(a)
		w.updatePod(w.targeted(a, workers.UpdatePodOptions{UpdateType: workers.SyncPodKill, Pod: w.podOf(a.UID), KillPodOptions: ko}), id)
	case plan.KillNow:
		w.killPodNow(a)
	case plan.RuntimeKill:
		one := int64(1)
		w.updatePod(workers.UpdatePodOptions{UpdateType: workers.SyncPodKill,
			RunningPod:     &workers.RunningPod{ID: a.UID, Name: "pod-" + string(a.UID), Namespace: "default"},
			KillPodOptions: &workers.KillPodOptions{PodTerminationGracePeriodSecondsOverride: &one}}, 0)
	}
}

// updateAs is updateIf for a plan action, carrying what its Target and
// KillOpts say.
func (w *World) updateAs(toWorkers bool, t workers.UpdateType, a plan.Action) {
	if toWorkers {
		ko, id := w.extraKillOptions(a)
		w.updatePod(w.targeted(a, workers.UpdatePodOptions{UpdateType: t, Pod: w.podOf(a.UID), KillPodOptions: ko}), id)
	}
}

// completedKillOptions are a's kill options with a new completion Event,
// and the Event's ID.
func (w *World) completedKillOptions(a plan.Action) (*workers.KillPodOptions, int) {
	ko := w.killOptions(a)
	w.completions++
	ko.CompletedCh = w.completionEvent(a.UID, w.completions)
	return ko, w.completions
}

// extraKillOptions are the kill options a non-kill update carries when
// a.KillOpts (api-shapes), with their completion's ID; none (nil, 0)
// otherwise.
func (w *World) extraKillOptions(a plan.Action) (*workers.KillPodOptions, int) {
	if !a.KillOpts {
		return nil, 0
	}
	return w.completedKillOptions(a)
}

// targeted gives o the runtime's view of a's pod as a.Target says: instead
// of the pod, or beside it.
func (w *World) targeted(a plan.Action, o workers.UpdatePodOptions) workers.UpdatePodOptions {
	if a.Target == "" {
		return o
	}
	o.RunningPod = &workers.RunningPod{ID: a.UID, Name: o.Pod.Name, Namespace: o.Pod.Namespace}
	if a.Target == plan.TargetRunningPod {
		o.Pod = nil
	}
	return o
}

func (w *World) updateIf(toWorkers bool, t workers.UpdateType, uid types.UID) {
	if toWorkers {
		w.update(t, uid, nil)
	}
}

func (w *World) update(t workers.UpdateType, uid types.UID, ko *workers.KillPodOptions) {
	w.updatePod(workers.UpdatePodOptions{UpdateType: t, Pod: w.podOf(uid), KillPodOptions: ko}, 0)
}

// updatePod is UpdatePod, recorded; completionID names the kill's
// CompletedCh (0: none).
func (w *World) updatePod(o workers.UpdatePodOptions, completionID int) {
	in := modelUpdate(&w.podObjects, o, completionID)
	w.quiet.NoteUpdate(o, in)
	id := w.call(w.kept.boxes.Update(in))
	w.shapes.Note(o, in.Pod.Static)
	g := w.S.Goroutine()
	w.cacheReads.Del(g)
	w.PW.UpdatePod(o)
	var out ops.Output
	if view, ok := w.cacheReads.Take(g); ok {
		out = ops.UpdateResult{Cache: view}
	}
	w.ret(id, out)
}

// killOptions are a's kill options, with their grace in one allocation,
// from memory Renew keeps.
func (w *World) killOptions(a plan.Action) *workers.KillPodOptions {
	o := w.kept.kills.Next()
	o.ko.Evict, o.grace = a.Evict, a.Grace
	if a.Grace >= 0 {
		o.ko.PodTerminationGracePeriodSecondsOverride = &o.grace
	}
	return &o.ko
}

// housekeeping is HandlePodCleanups' pod-worker part: SyncKnownPods with
// the pods in config, then create for the active desired pods it no longer
// knows (restart after UID reuse, SPEC §1.12 caller contract) and kills for
// terminal deleted and runtime-only pods (housekeepingExtras).
func (w *World) housekeeping() {
	w.lastHousekeeping = w.S.Elapsed()
	buf := w.takeDesired()
	defer w.putDesired(buf)
	desired, stubs := w.desired(buf)
	id := w.call(w.kept.calls.Desired(len(desired), func(i int) string { return string(desired[i].config.action.UID) }))
	known := w.PW.SyncKnownPods(stubs)
	w.quiet.NoteKnown(known)
	w.ret(id, w.kept.calls.Known(known))
	w.housekeepingExtras(desired, known, &buf.running)
}

// query reads every query, as the subsystems of SPEC §2 do. Each call
// goes to the pod workers current when it is made (a kubelet restart may
// come between two of them).
func (w *World) query(uid types.UID) {
	w.shapes.Add(shapes.Query)
	for kind := ops.IsPodKnownTerminated; kind <= ops.ShouldPodContentBeRemoved; kind++ {
		w.ask(kind, uid)
	}
	if p := w.pod(uid); p != nil && p.action.Static {
		full := w.podOf(uid).Name + "_default"
		pw := w.PW
		id := w.call(ops.Query{Kind: ops.IsPodForMirrorPodTerminatingByFullName, FullName: full})
		w.ret(id, ops.Answer(pw.IsPodForMirrorPodTerminatingByFullName(full)))
	}
}

// desiredPod is a pod in config as housekeeping found it: the config
// version podOf would have built then, kept as its fields, so the pod
// object is built (pod) only if housekeeping hands it to the workers.
type desiredPod struct {
	config   *configPod // its action is fixed at creation (newPod)
	version  int
	phase    v1.PodPhase
	deletion *int64
	now      time.Time
}

// desiredObject builds the pod object podOf built when d was taken.
func (w *World) desiredObject(d *desiredPod) *v1.Pod {
	return w.podObjects.Build(d.config.action, d.version, d.phase, d.deletion, d.now)
}

// desiredBuf holds the lists of one housekeeping pass. Two passes may
// overlap (the daemon's and a plan's SyncKnown, each waiting for the pod
// lock), so each takes its own buffer (takeDesired) and gives it back
// when it is done (putDesired).
type desiredBuf struct {
	pods    []desiredPod
	stubs   []*v1.Pod
	running []types.UID // the runtime's running pods (killRuntimeOnlyPods)
}

func (w *World) takeDesired() *desiredBuf {
	if n := len(w.desiredFree); n > 0 {
		b := w.desiredFree[n-1]
		w.desiredFree = w.desiredFree[:n-1]
		return b
	}
	return &desiredBuf{}
}

func (w *World) putDesired(b *desiredBuf) { w.desiredFree = append(w.desiredFree, b) }

// desired lists the pods in config, sorted by UID, with their stubs (pod
// objects with the pod's UID, all that SyncKnownPods reads of its argument:
// the first object podOf built for it, else one carrying only the UID), in
// b's buffers; the lists are valid until b is given back.
func (w *World) desired(b *desiredBuf) ([]desiredPod, []*v1.Pod) {
	pods, stubs := b.pods[:0], b.stubs[:0]
	now := w.S.Now()
	for _, p := range w.inOrder {
		if !p.inConfig {
			continue
		}
		pods = append(pods, desiredPod{config: p, version: p.version, phase: p.phase, deletion: p.deletion, now: now})
		if p.stub == nil && p.built != nil {
			p.stub = p.built // a pod object built for the pod already carries its UID
		} else if p.stub == nil {
			p.stub = &v1.Pod{ObjectMeta: metav1.ObjectMeta{UID: p.action.UID}}
		}
		stubs = append(stubs, p.stub)
	}
	b.pods, b.stubs = pods, stubs
	return pods, stubs
}
