package world

import (
	"time"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/plan"
	"k8s.io/apimachinery/pkg/types"
)

// Pod object names in the API server model, and the grace reaper: the
// API-server side's delayed forced delete of a pod object whose deletion
// grace expired (virtual-kubelet's pod controller, whose delete queue
// docs/bugs.md V2 is about). Both act only on a Node that asks for them
// (Node.UniqueNames, Node.ForceDeleteAfterGrace): the families written
// before them keep their behaviour and traces.
//
// The reaper is a timer per queued forced delete: a kubelet actor
// goroutine (goActor) that sleeps until the deadline, so a pending reap
// keeps the world busy (KubeletBusy counts running actors) and the settle
// phase cannot end before it fires. A key forgotten meanwhile leaves its
// goroutine nothing to do when it wakes. The reaper lives on the World,
// not on the kubelet: it is the API server's, and survives a kubelet
// restart.

// ReapSlack is how long after a deletion grace expires the grace reaper
// force-deletes the object (virtual-kubelet waited the grace period, then
// queued the delete).
const ReapSlack = time.Second

// ReapKey is what the reaper's queue is keyed by: the object's name and
// UID (#908's fix); the V2 mutant leaves the UID out.
type ReapKey struct {
	Name string
	UID  types.UID
}

// graceReaper is the reaper's delete queue: the deadline of each queued
// forced delete.
type graceReaper struct {
	due map[ReapKey]time.Duration
}

// uniqueNames: the API server enforces name uniqueness (Node.UniqueNames).
func (w *World) uniqueNames() bool {
	return w.kube != nil && w.kube.node.APIServer && w.kube.node.UniqueNames
}

// apiRefuses is the API server's answer to a client's create or delete of
// a non-static pod object, under Node.UniqueNames: a create whose name
// another object in the API holds is refused (AlreadyExists: the client's
// create does nothing; its family retries later under a new UID, as a new
// object), and so is a delete of an object that is not in the API
// (NotFound).
func (w *World) apiRefuses(a plan.Action, p *configPod) bool {
	if !w.uniqueNames() || a.Static {
		return false
	}
	switch a.Kind {
	case plan.Create:
		name := a.PodName()
		if holder := w.nameHolder(name); holder != "" && holder != a.UID {
			w.mark(plan.MarkNameTaken)
			return true
		}
		if w.graceRunsForName(name, a.UID) {
			w.mark(plan.MarkRecreatedInGrace)
		}
	case plan.Delete:
		return p == nil || !p.inAPI
	}
	return false
}

// nameHolder is the UID of the non-static pod object in the API that has
// name ("" if none).
func (w *World) nameHolder(name string) types.UID {
	for _, p := range w.inOrder {
		if p.inAPI && !p.action.Static && p.action.PodName() == name {
			return p.action.UID
		}
	}
	return ""
}

// graceRunsForName: another object of that name was deleted and its
// deletion grace has not expired yet (V2's premise: a pod re-created in
// the grace period of its predecessor).
func (w *World) graceRunsForName(name string, except types.UID) bool {
	for _, p := range w.inOrder {
		if p.action.UID != except && !p.action.Static && p.action.PodName() == name && p.deletion != nil &&
			w.S.Elapsed() < p.deletedAt+time.Duration(*p.deletion)*time.Second {
			return true
		}
	}
	return false
}

// reapKeyOf is p's key in the reaper's queue.
func (w *World) reapKeyOf(p *configPod) ReapKey {
	return ReapKeyFor(p.action, w.Bugs.V2ReaperKeyedByName)
}

// ReapKeyFor is the key of the pod object a creates: its name and UID, or
// (byName, V2) the name alone. The baseline's reaper shares it.
func ReapKeyFor(a plan.Action, byName bool) ReapKey {
	k := ReapKey{Name: a.PodName()}
	if !byName {
		k.UID = a.UID
	}
	return k
}

// queueReap: the pod object p got a deletion timestamp with grace g; the
// reaper queues its forced delete for when the grace expired (the earliest
// deadline wins, as a shorter grace moves the deletion timestamp earlier).
func (w *World) queueReap(p *configPod, g int64) {
	if w.kube == nil || !w.kube.node.APIServer || !w.kube.node.ForceDeleteAfterGrace || !p.inAPI || p.action.Static {
		return
	}
	k := w.reapKeyOf(p)
	at := w.S.Elapsed() + time.Duration(g)*time.Second + ReapSlack
	if due, queued := w.reaper.due[k]; queued && due <= at {
		return
	}
	if w.reaper.due == nil {
		w.reaper.due = map[ReapKey]time.Duration{}
	}
	w.reaper.due[k] = at
	w.goActor("reaper", func() {
		w.S.Sleep(at - w.S.Elapsed())
		if due, queued := w.reaper.due[k]; queued && due == at {
			delete(w.reaper.due, k)
			w.reap(k)
		}
	})
}

// reap is one forced delete, with the UID as precondition: the object of
// that name and UID, if it is still in the API. The V2 mutant deletes
// whatever object holds the name now.
func (w *World) reap(k ReapKey) {
	uid := k.UID
	if w.Bugs.V2ReaperKeyedByName {
		uid = w.nameHolder(k.Name)
	}
	p := w.pod(uid)
	if p == nil || !p.inAPI || p.action.PodName() != k.Name {
		return
	}
	w.note(history.Removed{UID: uid, By: "grace reaper", Forced: true})
	w.mark(plan.MarkGraceReaped)
	p.inAPI = false
	w.leftAPI(p)
	w.echoLater(p)
}

// leftAPI: the pod object p left the API (deleted by the status manager,
// the reaper or a client): the reaper forgets its key. The V2 mutant
// keeps it, so that it fires at the deadline.
func (w *World) leftAPI(p *configPod) {
	if w.reaper.due != nil && !w.Bugs.V2ReaperKeyedByName {
		delete(w.reaper.due, w.reapKeyOf(p))
	}
}
