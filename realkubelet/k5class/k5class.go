// Package k5class names a K5 finding of the real kubelet ("SyncPod began
// for a pod first added after the node shutdown began") as upstream
// deviation GH, GI or GK (docs/upstream-findings.md) when its predicate
// held at the SyncPod's note. It keeps only the evidence the two predicates
// read; the driver feeds it what it did and saw, so it knows no driver,
// pod workers or status manager.
//
// GH: the pod's ADD came during the shutdown and skipped admission because
// the pod workers said its termination was requested (HandlePodAdditions
// admits only when IsPodTerminationRequested is false), and the request
// was housekeeping's runtime-only kill of the UID (the runtime's orphan of
// an earlier incarnation): the UID's latest kill before that ADD was a
// RunningPod kill, no kill with a pod since. Once the runtime pod's
// termination is done, the worker forgets the record and housekeeping
// starts the desired pod, which no rejection made inactive.
//
// GI (where GH does not hold): the pod's latest ADD came during the
// shutdown and skipped admission for a kill with the pod (HandlePodRemoves'
// kill when it left config), and after the pod's latest rejection at
// admission (rejectPod's Failed status, the one thing that keeps it out of
// the active pods) a pass of the status manager dropped that terminal
// status while the API server held, under the pod's namespace and name, a
// pod of another UID: the status manager's syncPod fetches the object by
// name, takes the other UID for a re-creation ("Pod was deleted and then
// recreated") and deletes the status. Housekeeping then forgets the UID's
// finished record and, the pod being active, starts it during the shutdown
// without its ever being admitted.
//
// GK (where neither holds): the pod's latest ADD was admitted in a kubelet
// process that started while logind shut the node down, whose node
// shutdown manager was never told of the shutdown: logind announced it to
// the process before, once, and the new manager does not ask at its start
// (kubernetes#122674). Its Admit sees no shutdown and admits the pod. A
// manager that was told (a kubelet that learns of the shutdown at its
// start) and admits anyway is not GK.
package k5class

import (
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/kubernetes/pkg/kubelet"
	kubetypes "k8s.io/kubernetes/pkg/kubelet/types"
)

// Evidence is what the two predicates keep. Its zero value is not ready:
// Reset it first.
type Evidence struct {
	// killed: the UID's latest kill in this kubelet process, true if it
	// was runtime-only (present: a kill was sent).
	killed map[types.UID]bool
	// ghSkipped, giSkipped: the UID's latest ADD during the shutdown
	// skipped admission for a runtime-only kill's request (GH) or a kill
	// with the pod's (GI).
	ghSkipped, giSkipped map[types.UID]bool
	// dropped: a status pass dropped the UID's terminal status for another
	// UID's object under its name since its latest rejection (GI).
	dropped map[types.UID]bool
	// unheard: the UID's latest ADD was admitted by a manager never told
	// of the node shutdown in force (GK).
	unheard map[types.UID]bool
	// classAt is the class of a K5 finding about the SyncPodBegins note
	// with that sequence number, across kubelet processes.
	classAt map[int64]string
}

// Reset starts a kubelet process's evidence; the classes found so far stay.
func (e *Evidence) Reset() {
	e.killed, e.ghSkipped, e.giSkipped, e.dropped, e.unheard =
		map[types.UID]bool{}, map[types.UID]bool{}, map[types.UID]bool{}, map[types.UID]bool{}, map[types.UID]bool{}
	if e.classAt == nil {
		e.classAt = map[int64]string{}
	}
}

// NoteKill follows every update sent to the pod workers.
func (e *Evidence) NoteKill(uid types.UID, o kubelet.UpdatePodOptions) {
	if o.UpdateType == kubetypes.SyncPodKill {
		e.killed[uid] = o.Pod == nil && o.RunningPod != nil
	}
}

// Skip is what a fresh ADD's admission would skip for, during the shutdown.
type Skip struct{ gh, gi bool }

// Admitting is called before a fresh ADD's admission: shutdown says a node
// shutdown began, requested asks the pod workers whether the UID's
// termination is requested (asked only when a kill of it was sent).
func (e *Evidence) Admitting(uid types.UID, shutdown bool, requested func() bool) Skip {
	runtimeOnly, killed := e.killed[uid]
	if !shutdown || !killed || !requested() {
		return Skip{}
	}
	return Skip{gh: runtimeOnly, gi: !runtimeOnly}
}

// Admitted records an ADD's outcome (s: Admitting before it; the zero
// Skip for a restart's re-add); unheard: a node shutdown is in force that
// the process's manager was never told of. A rejection puts a new Failed
// status in, so nothing is dropped yet.
func (e *Evidence) Admitted(uid types.UID, admitted bool, s Skip, unheard bool) {
	e.ghSkipped[uid], e.giSkipped[uid] = admitted && s.gh, admitted && s.gi
	e.unheard[uid] = admitted && unheard
	if !admitted {
		e.dropped[uid] = false
	}
}

// StatusPass runs one pass of the status manager (sync) over the pods
// whose status was terminal before it (terminal), and records those it
// dropped (gone, asked after the pass) while another UID's object held the
// pod's name. The evidence is a set, so terminal's order reaches nothing.
func (e *Evidence) StatusPass(terminal []types.UID, sync func(), gone func(types.UID) bool) {
	sync()
	for _, uid := range terminal {
		if gone(uid) {
			e.dropped[uid] = true
		}
	}
}

// SyncPodNoted gives the SyncPodBegins note with sequence number seq, of a
// pod first added during the shutdown or not (addedInShutdown), its K5
// class, if a predicate holds.
func (e *Evidence) SyncPodNoted(uid types.UID, seq int64, addedInShutdown bool) {
	switch {
	case !addedInShutdown:
	case e.ghSkipped[uid]:
		e.classAt[seq] = "GH"
	case e.giSkipped[uid] && e.dropped[uid]:
		e.classAt[seq] = "GI"
	case e.unheard[uid]:
		e.classAt[seq] = "GK"
	}
}

// Class is the class of a K5 finding about the note with sequence number
// seq ("" if neither predicate held there).
func (e *Evidence) Class(seq int64) string { return e.classAt[seq] }
