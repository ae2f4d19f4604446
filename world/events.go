package world

import (
	"strings"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/model/ops"
	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/workers"
	"github.com/podsim/podsim/world/simrt"
)

// worldRuntime is the simulated runtime as the pod workers see it in a
// World: its events report their firing to the observers.
type worldRuntime struct {
	*simrt.Runtime
	w     *World
	epoch int // the kubelet process these pod workers belong to
}

// Go starts a pod worker goroutine, noted as it starts and returns
// (drain.go).
func (r *worldRuntime) Go(name string, f func()) { r.w.runtimeGo(r.Runtime, r.epoch, name, f) }

// NewSignal wraps a worker's wake-up signal so that its waits are recorded
// (drain.go).
func (r *worldRuntime) NewSignal(name string) workers.Signal {
	s := r.w.kept.signals.Next()
	s.S, s.Set, s.Name, s.Kubelet = r.S, &r.w.workers, name, r.epoch
	r.S.InitSignal(&s.Signal, name) // simrt.Runtime.NewSignal's, in one allocation with its wrapper
	return s
}

// NewEvent wraps the workers' events: cancel/<uid>#n fire as CancelFired;
// killed/<uid> is killPodNow's completion, which gets a completion ID here
// and starts the recorded kill of the killPodNow in progress.
func (r *worldRuntime) NewEvent(name string) workers.Event {
	uid := plan.SameUID(history.UIDOfEvent(name))
	switch {
	case r.epoch != r.w.epoch:
		return r.Runtime.NewEvent(name) // a dead kubelet's: nobody observes it
	case strings.HasPrefix(name, "cancel/"):
		return r.w.observedEvent(r.Runtime, name, uid, cancelled, r.epoch)
	case strings.HasPrefix(name, "killed/"):
		r.w.completions++
		id := r.w.completions
		r.w.killNowStarted(id)
		return r.w.observedEvent(r.Runtime, name, uid, id, r.epoch)
	}
	return r.Runtime.NewEvent(name)
}

// completionEvent is the CompletedCh the world passes with a kill.
func (w *World) completionEvent(uid types.UID, id int) workers.Event {
	return w.observedEvent(w.RT, "completed/"+string(uid), string(uid), id, w.epoch)
}

// observedEvent is rt's event called name, in one allocation: uid's
// cancellation (id cancelled) or its completion id, emitted as it fires.
func (w *World) observedEvent(rt *simrt.Runtime, name, uid string, id int, epoch int) *observedEvent {
	e := w.kept.events.Next()
	e.w, e.uid, e.id, e.epoch = w, uid, id, epoch
	rt.InitEvent(&e.Event, name)
	return e
}

// observedEvent emits Fired as it fires, inside the critical section that
// fires it (unless its kubelet process has been restarted since).
type observedEvent struct {
	simrt.Event // in the same allocation (simrt.Runtime.InitEvent)
	w           *World
	// What Fire emits (boxes.Cache.Fired): ops.CancelFired{UID: uid} when
	// id is cancelled, else ops.CompletionFired{UID: uid, ID: id} (boxed
	// only as it fires: most cancellations never do).
	uid   string
	id    int
	epoch int
}

// cancelled is observedEvent's id of a cancellation.
const cancelled = -1

func (e *observedEvent) Fire() {
	if e.epoch == e.w.epoch {
		e.w.emit(history.Fired, 0, e.w.kept.boxes.Fired(e.uid, e.id), nil)
	}
	e.Event.Fire()
}

// killNowCall follows one KillPodNow through its two recorded parts: the
// kill (an UpdatePod carrying the completion ID, from the creation of its
// completion Event to the release of the pod lock it takes) and the wait
// (ops.KillPodNowDone, until KillPodNow returns).
type killNowCall struct {
	pod          *v1.Pod
	ko           *workers.KillPodOptions
	completionID int
	updateID     int // the recorded kill, while in progress
	waitID       int // the recorded wait, once started
}

func (w *World) killPodNow(a plan.Action) { w.killPodNowWith(a, nil, w.epoch) }

// killPodNowWith is KillPodNow with a status function, recorded, asked by
// a caller of kubelet process epoch; it reports whether the pod terminated
// in time. A caller whose process a restart ended (a shutdown or eviction
// manager's goroutine) kills nothing: the manager went with its process, and
// the new process's pod workers never see its kill.
func (w *World) killPodNowWith(a plan.Action, statusFn workers.PodStatusFunc, epoch int) bool {
	if w.epoch != epoch {
		return false
	}
	g := w.S.Goroutine()
	k := &killNowCall{pod: w.podOf(a.UID), ko: w.killOptions(a)}
	w.killNow.Set(g, k)
	err := w.PW.KillPodNow(k.pod, k.ko.Evict, k.ko.PodTerminationGracePeriodSecondsOverride, statusFn)
	w.killNow.Del(g)
	if k.waitID != 0 {
		w.ret(k.waitID, ops.Answer(err == nil))
	}
	return err == nil
}

// killNowStarted: KillPodNow created its completion Event; its kill begins.
func (w *World) killNowStarted(completionID int) {
	k, _ := w.killNow.Get(w.S.Goroutine())
	if k == nil || k.updateID != 0 {
		return
	}
	k.completionID = completionID
	o := workers.UpdatePodOptions{UpdateType: workers.SyncPodKill, Pod: k.pod, KillPodOptions: k.ko}
	k.updateID = w.call(modelUpdate(&w.podObjects, o, completionID))
}

// killNowUpdateDone: the goroutine in KillPodNow releases the pod lock its
// kill took; the kill returns and the wait begins.
func (w *World) killNowUpdateDone() {
	if w.killNow.Len() == 0 {
		return // at most pod-lock releases: no lookup by goroutine name
	}
	k, _ := w.killNow.Get(w.S.Goroutine())
	if k == nil || k.updateID == 0 || k.waitID != 0 {
		return
	}
	w.ret(k.updateID, nil)
	k.waitID = w.call(ops.KillPodNowDone{UID: string(k.pod.UID), ID: k.completionID})
}
