package safety

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/model/ops"
	"github.com/podsim/podsim/oracle"
	"k8s.io/apimachinery/pkg/types"
)

// This file is a small harness that feeds the safety oracle synthetic
// events and a scripted view, so that a test can tell a story ("create a,
// SyncPod, kill, …") the way the World would emit it and then change one
// step to plant a violation.

// safetyFakeView is a scripted safetyView.
type safetyFakeView struct {
	answers map[string]oracle.Answers // known UIDs only
	unknown map[string]oracle.Answers // planted answers of unknown UIDs
	synced  bool
	mirror  map[string]bool
}

func (v *safetyFakeView) KnownUIDs() []string {
	var out []string
	for uid := range v.answers {
		out = append(out, uid)
	}
	slices.Sort(out)
	return out
}

func (v *safetyFakeView) Answers(u types.UID) oracle.Answers {
	uid := string(u)
	if a, ok := v.answers[uid]; ok {
		return a
	}
	if a, ok := v.unknown[uid]; ok {
		return a
	}
	return safetyUnknown(v.synced)
}

func (v *safetyFakeView) Synced() bool                    { return v.synced }
func (v *safetyFakeView) MirrorTerminating(f string) bool { return v.mirror[f] }

// safetyScript emits events to a fresh oracle.
type safetyScript struct {
	o    *safetyOracle
	view *safetyFakeView
	seq  int64
	at   time.Duration
	ids  int
	// content: per UID, whether the scripted pod counts as evicted or
	// deleted (ShouldPodContentBeRemoved in D and F; in TR/T when evict).
	evicted, deleted map[string]bool
	pendingKill      map[string]int // per UID: the completion ID of its last kill, to fire at D
	// fullname of static pods, and the started one per full name: the
	// script keeps MirrorTerminating as the workers do, unless manualMirror.
	fullname     map[string]string
	started      map[string]string
	manualMirror bool
}

func newSafetyScript() *safetyScript {
	return &safetyScript{o: newSafetyOracle(), view: &safetyFakeView{answers: map[string]oracle.Answers{},
		unknown: map[string]oracle.Answers{}, mirror: map[string]bool{}},
		evicted: map[string]bool{}, deleted: map[string]bool{}, pendingKill: map[string]int{},
		fullname: map[string]string{}, started: map[string]string{}}
}

func (s *safetyScript) emit(kind history.EventKind, g string, id int, in ops.Input, out ops.Output) {
	s.seq++
	s.o.step(s.view, &history.Event{Seq: s.seq, At: s.at, Goroutine: g, Kind: kind, ID: id, Input: in, Output: out})
}

// tick lets virtual time pass.
func (s *safetyScript) tick() { s.at += 500 * time.Millisecond }

// cs is a critical section of g: effect changes the view (and may fire).
func (s *safetyScript) cs(g string, effect func()) {
	s.emit(history.LockAcquired, g, 0, nil, nil)
	if effect != nil {
		effect()
	}
	s.syncMirror()
	s.emit(history.LockReleasing, g, 0, nil, nil)
}

// syncMirror is IsPodForMirrorPodTerminatingByFullName (SPEC §1.10): true
// while the started static pod of the name is in TR or T; the name is
// released when that pod finishes or is purged.
func (s *safetyScript) syncMirror() {
	if s.manualMirror {
		return
	}
	for f, uid := range s.started {
		a, ok := s.view.answers[uid]
		if !ok || a.BeFinished {
			delete(s.started, f)
			s.view.mirror[f] = false
			continue
		}
		s.view.mirror[f] = a.TerminationRequested && !a.KnownTerminated
	}
}

// call is a client call of g that takes effect in one critical section;
// out, if set, computes its result after the effect.
func (s *safetyScript) call(g string, in ops.Input, effect func(), out func() ops.Output) {
	s.ids++
	id := s.ids
	s.emit(history.ClientCall, g, id, in, nil)
	s.cs(g, effect)
	var o ops.Output
	if out != nil {
		o = out()
	}
	s.emit(history.ClientReturn, g, id, nil, o)
	s.tick()
}

// state sets the answers of uid to those of a SPEC §1.2 state: P, S, TR,
// T, D, F (content from the script's evicted/deleted), or "" to forget it.
func (s *safetyScript) state(uid, st string) {
	if st == "" {
		delete(s.view.answers, uid)
		return
	}
	a := oracle.Answers{Known: true, CouldHaveRunning: true}
	switch st {
	case "F":
		a.BeFinished = true
		fallthrough
	case "D":
		a.KnownTerminated, a.RuntimeBeRemoved, a.CouldHaveRunning = true, true, false
		a.ContentBeRemoved = s.deleted[uid]
		fallthrough
	case "T":
		a.ContainersBeTerminating = true
		fallthrough
	case "TR":
		a.TerminationRequested = true
		a.ContentBeRemoved = a.ContentBeRemoved || s.evicted[uid]
	}
	s.view.answers[uid] = a
}

// safetyPodAt is the model pod of uid at version v (spec grace 30).
func safetyPodAt(uid string, v int) ops.Pod {
	return ops.Pod{UID: uid, Name: "pod-" + uid, Namespace: "default", Version: v, SpecGrace: 30, Phase: ops.PhaseRunning}
}

func safetyStaticPod(uid string, v int) ops.Pod {
	p := safetyPodAt(uid, v)
	p.Name, p.Static = "web", true
	return p
}

// update is an UpdatePod of u by client/0; effect is what the workers do.
func (s *safetyScript) update(u ops.UpdatePod, effect func()) {
	s.call("client/0", u, effect, nil)
}

// create: a new record in P.
func (s *safetyScript) create(p ops.Pod) {
	s.update(ops.UpdatePod{Type: ops.Create, Pod: p}, func() {
		if _, ok := s.view.answers[p.UID]; !ok {
			s.state(p.UID, "P")
			if p.Static {
				s.fullname[p.UID] = p.FullName()
			}
		}
	})
}

// killPod requests termination, cancelling the current sync; with a
// completion, it fires once the pod is terminated.
func (s *safetyScript) killPod(p ops.Pod, ko ops.KillOptions) {
	s.update(ops.UpdatePod{Type: ops.Kill, Pod: p, Kill: ko}, func() {
		s.cancel(p.UID)
		s.evicted[p.UID] = ko.Evict
		if ko.CompletionID != 0 {
			s.pendingKill[p.UID] = ko.CompletionID
		}
		if !s.view.answers[p.UID].TerminationRequested {
			s.state(p.UID, "TR")
		}
	})
}

func (s *safetyScript) cancel(uid string) {
	s.emit(history.Fired, "client/0", 0, ops.CancelFired{UID: uid}, nil)
}

func (s *safetyScript) fire(uid string, id int) {
	s.emit(history.Fired, "client/0", 0, ops.CompletionFired{UID: uid, ID: id}, nil)
}

// worker is a critical section of uid's worker.
func (s *safetyScript) worker(uid string, effect func()) { s.cs("worker/"+uid, effect) }

func (s *safetyScript) begin(uid string, fn ops.SyncFn, version int, g int64) {
	s.emit(history.CallbackBegin, "worker/"+uid, 0, ops.SyncBegin{UID: uid, Fn: fn, Version: version, Grace: g}, nil)
}

func (s *safetyScript) end(uid string, fn ops.SyncFn, out ops.Outcome, terminal bool) {
	s.tick()
	s.emit(history.CallbackEnd, "worker/"+uid, 0, ops.SyncEnd{UID: uid, Fn: fn, Outcome: out, IsTerminal: terminal}, nil)
}

// syncPod: the worker takes version v and runs SyncPod to its end.
func (s *safetyScript) syncPod(uid string, v int) {
	s.worker(uid, func() {
		if f := s.fullname[uid]; f != "" && s.started[f] == "" {
			s.started[f] = uid
		}
	})
	s.begin(uid, ops.SyncPod, v, 0)
	s.end(uid, ops.SyncPod, ops.OK, false)
	s.worker(uid, nil)
}

// terminating: take, acknowledge (T), SyncTerminatingPod(grace) with
// outcome out; on success the pod is terminated (D) and its kill completes.
func (s *safetyScript) terminating(uid string, v int, g int64, out ops.Outcome) {
	s.worker(uid, nil)
	s.worker(uid, func() { s.state(uid, "T") })
	s.begin(uid, ops.SyncTerminatingPod, v, g)
	s.end(uid, ops.SyncTerminatingPod, out, false)
	s.worker(uid, func() {
		if out == ops.OK {
			s.state(uid, "D")
			if id := s.pendingKill[uid]; id != 0 {
				s.fire(uid, id)
				delete(s.pendingKill, uid)
			}
		}
	})
}

// terminated: take, SyncTerminatedPod; on success the pod is finished.
func (s *safetyScript) terminated(uid string, v int, out ops.Outcome) {
	s.worker(uid, nil)
	s.begin(uid, ops.SyncTerminatedPod, v, 0)
	s.end(uid, ops.SyncTerminatedPod, out, false)
	s.worker(uid, func() {
		if out == ops.OK {
			s.state(uid, "F")
		}
	})
}

// syncKnown is SyncKnownPods(desired): podsSynced, then effect (purges,
// orphan termination); the result lists the records left.
func (s *safetyScript) syncKnown(desired []string, effect func()) {
	s.call("client/0", ops.SyncKnownPods{Desired: desired}, func() {
		s.view.synced = true
		if effect != nil {
			effect()
		}
	}, func() ops.Output { return s.known(desired) })
}

// known is SyncKnownPods' result for the records the view holds.
func (s *safetyScript) known(desired []string) ops.KnownPods {
	out := ops.KnownPods{}
	for _, uid := range s.view.KnownUIDs() {
		out = append(out, ops.KnownPod{UID: uid, Orphan: !slices.Contains(desired, uid)})
	}
	return out
}

// lifecycle is the happy path of one pod: create, SyncPod, kill (with
// completion 1), terminating, terminated, purge.
func (s *safetyScript) lifecycle(uid string) {
	p := safetyPodAt(uid, 1)
	s.create(p)
	s.syncPod(uid, 1)
	s.killPod(p, ops.KillOptions{CompletionID: 1})
	s.terminating(uid, 1, 30, ops.OK)
	s.terminated(uid, 1, ops.OK)
	s.syncKnown(nil, func() { s.state(uid, "") })
}

// finish ends the run.
func (s *safetyScript) finish() []history.Violation {
	s.emit(history.Settled, "driver", 0, nil, nil)
	return s.o.Finish(nil, nil)
}

// safetyInvariants lists the invariants of vs, sorted, without duplicates.
func safetyInvariants(vs []history.Violation) []string {
	var out []string
	for _, v := range vs {
		if !slices.Contains(out, v.Invariant) {
			out = append(out, v.Invariant)
		}
	}
	slices.Sort(out)
	return out
}

func safetyDescribe(vs []history.Violation) string {
	var b strings.Builder
	for _, v := range vs {
		fmt.Fprintf(&b, "\n  %v (seq %d)", v, v.Seq)
	}
	return b.String()
}
