package vkworld

import (
	"cmp"
	"errors"
	"maps"
	"slices"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/history"
)

// The API server's errors, as the client sees them.
var (
	errNotFound      = errors.New("not found")
	errAlreadyExists = errors.New("already exists")
	errConflict      = errors.New("conflict")
	errTransient     = errors.New("transient error")
)

// specGrace is every plan pod's terminationGracePeriodSeconds: a delete
// with no grace of its own uses it.
const specGrace = 30

// apiPod is one pod object as the API server stores it (and as a watch
// event and the informer's cache carry a copy of it).
type apiPod struct {
	uid       types.UID
	name      string
	rv        int // resourceVersion
	deleting  bool
	deletedAt time.Duration
	grace     int64
	phase     v1.PodPhase
	version   int // the provider status version the status carries (0: none, or another writer's)
}

// watchEvent is one change the API server sends to its watchers.
type watchEvent struct {
	kind string // "added", "modified", "deleted"
	pod  apiPod
	at   time.Duration
}

// watcher is one watch on the API server's pods.
type watcher struct {
	events  []watchEvent
	wake    signal
	stopped bool
}

// signal is the part of sim.Signal a watcher uses.
type signal interface {
	Notify()
	Wait() bool
	Close()
}

// apiServer is the API server model: objects by name, graceful deletion
// with deletion timestamps, UID preconditions, resourceVersion conflicts
// on status writes, and transient errors while the world's faults are on.
// It is called synchronously by whichever goroutine writes; every change
// is recorded as a note and sent to the watchers.
type apiServer struct {
	w        *World
	pods     map[string]*apiPod
	rv       int
	watchers []*watcher
}

func (a *apiServer) bump(p *apiPod) { a.rv++; p.rv = a.rv }

func (a *apiServer) send(kind string, p apiPod) {
	for _, wt := range a.watchers {
		if !wt.stopped {
			wt.events = append(wt.events, watchEvent{kind: kind, pod: p, at: a.w.S.Elapsed()})
			wt.wake.Notify()
		}
	}
}

// watch lists the pods and opens a watch from that instant, atomically
// (no scheduling point between).
func (a *apiServer) watch(name string) ([]apiPod, *watcher) {
	wt := &watcher{wake: a.w.S.NewSignal(name)}
	a.watchers = append(a.watchers, wt)
	return a.list(), wt
}

// list is every pod object, by name.
func (a *apiServer) list() []apiPod {
	var out []apiPod
	for _, n := range slices.Sorted(maps.Keys(a.pods)) {
		out = append(out, *a.pods[n])
	}
	return out
}

func (a *apiServer) create(uid types.UID, name string) error {
	if a.pods[name] != nil {
		return errAlreadyExists
	}
	p := &apiPod{uid: uid, name: name, phase: v1.PodPending}
	a.bump(p)
	a.pods[name] = p
	a.w.note(history.VKCreated{UID: uid, Name: name})
	a.send("added", *p)
	return nil
}

// delete deletes object name: a UID precondition (if set) and a
// resourceVersion precondition (if rv > 0) must match; grace 0 removes it at
// once, otherwise it gets a deletion timestamp (a second delete may only
// shorten the grace to 0).
func (a *apiServer) delete(by, name string, grace int64, precondition types.UID, rv int) error {
	p := a.pods[name]
	switch {
	case p == nil:
		return errNotFound
	case precondition != "" && precondition != p.uid || rv > 0 && rv != p.rv:
		return errConflict
	case grace < 0:
		grace = specGrace
	}
	if !p.deleting && (grace > 0 || by != "controller") {
		a.w.note(history.VKDeleteRequested{UID: p.uid, Grace: grace, By: by})
	}
	if grace == 0 {
		delete(a.pods, name)
		a.bump(p)
		a.w.note(history.VKRemoved{UID: p.uid, By: by, Precondition: precondition})
		a.send("deleted", *p)
		return nil
	}
	if p.deleting {
		return nil
	}
	p.deleting, p.deletedAt, p.grace = true, a.w.S.Elapsed(), grace
	a.bump(p)
	a.send("modified", *p)
	return nil
}

// updateStatus writes a status for the object named name, which must still
// be uid at resourceVersion rv.
func (a *apiServer) updateStatus(name string, uid types.UID, rv int, phase v1.PodPhase, version int) error {
	p := a.pods[name]
	var err error
	switch {
	case p == nil:
		err = errNotFound
	case p.uid != uid || p.rv != rv:
		err = errConflict
	case a.w.fault("api/status"):
		err = errTransient
	}
	err = a.w.statusPoints(uid, p, err)
	if err != nil {
		a.w.note(history.VKStatusWriteFailed{UID: uid, Err: strings.TrimSuffix(err.Error(), " error")})
		return err
	}
	p.phase, p.version = phase, version
	a.bump(p)
	a.w.note(history.VKStatusWritten{UID: uid, Phase: phase, Version: version})
	a.send("modified", *p)
	return nil
}

// edit is another writer's change of uid's status (its message): the
// provider's version is no longer what the API holds.
func (a *apiServer) edit(uid types.UID) {
	for _, p := range a.pods {
		if p.uid == uid {
			p.version = 0
			a.bump(p)
			a.w.note(history.VKEdited{UID: uid})
			a.send("modified", *p)
			return
		}
	}
}

func (a *apiServer) final() []history.VKAPIPod {
	var out []history.VKAPIPod
	for _, p := range a.list() {
		out = append(out, history.VKAPIPod{UID: p.uid, Name: p.name, Deleting: p.deleting, Phase: p.phase, Version: p.version})
	}
	slices.SortFunc(out, func(x, y history.VKAPIPod) int {
		return cmp.Or(strings.Compare(string(x.UID), string(y.UID)), strings.Compare(x.Name, y.Name))
	})
	return out
}
