package run

import (
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/model/ops"
	"github.com/podsim/podsim/oracle"
	"github.com/podsim/podsim/oracle/liveness"
	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/sim"
	"github.com/podsim/podsim/workers"
	"github.com/podsim/podsim/world"
	"github.com/podsim/podsim/world/fakeruntime"
)

// Planted liveness faults: the correct pod workers run on a syncer, a
// runtime or a work queue that misbehaves in one precise way, so that some
// obligation of SPEC §3.2 is never met. The faults live outside the code
// under test, as docs/design.md's fake runtime/syncer with faults does.

// lvPlant wraps what the pod workers of a World run on.
type lvPlant struct {
	syncer  func(w *world.World, inner workers.Syncer) workers.Syncer
	runtime func(w *world.World, inner workers.Runtime) workers.Runtime
	queue   func(inner workers.WorkQueue) workers.WorkQueue
}

// with is p with q's wrappers added (q's win where both wrap the same).
func (p *lvPlant) with(q *lvPlant) *lvPlant {
	out := lvPlant{}
	for _, x := range []*lvPlant{p, q} {
		if x == nil {
			continue
		}
		if x.syncer != nil {
			out.syncer = x.syncer
		}
		if x.runtime != nil {
			out.runtime = x.runtime
		}
		if x.queue != nil {
			out.queue = x.queue
		}
	}
	return &out
}

// lvRun runs plan with only the liveness oracle, on pod workers built
// over p's wrappers (nil: the plain world).
func lvRun(t *testing.T, pl plan.Plan, p *lvPlant) (map[string]int, []history.Violation) {
	t.Helper()
	w := lvWorld(pl, p)
	o, view := livenessOracle(), w.View()
	w.Observe(func(ev history.Event) { o.Observe(view, &ev) })
	err := w.Run()
	if err != nil {
		t.Fatalf("run: got error %v, want none\n%v", err, pl)
	}
	return liveness.Checked(o), o.Finish(view, err)
}

// livenessOracle is the liveness oracle as runs get it.
func livenessOracle() oracle.Oracle {
	return liveness.New(livenessPeriods)
}

// lvWorld is the world of lvRun, not yet run.
func lvWorld(pl plan.Plan, p *lvPlant) *world.World {
	st := plan.SeedStreams(7)
	w := world.NewWorld(pl, st.Schedule, st.Faults, sim.RandomWalk{})
	if p != nil {
		w.Wrap(world.Wrappers{Syncer: p.syncer, Runtime: p.runtime, Queue: p.queue})
	}
	return w
}

// lvAct is an action of client 0 with the defaults of a generated one.
func lvAct(at time.Duration, kind plan.ActionKind, uid types.UID) plan.Action {
	return plan.Action{At: at, Kind: kind, UID: uid, SpecGrace: 30, Grace: -1}
}

func lvStatic(a plan.Action) plan.Action {
	a.Static, a.Name = true, "web"
	return a
}

func lvPlan(actions ...plan.Action) plan.Plan {
	return plan.Plan{Family: "planted", Clients: 1, Actions: actions}
}

// lvFailingSyncer fails fn for uid (times calls; <0: every call), reporting
// the calls to the World as the fake runtime does.
type lvFailingSyncer struct {
	workers.Syncer
	w     *world.World
	fn    string
	uid   types.UID
	times int
}

func lvFailing(fn string, uid types.UID, times int) *lvPlant {
	return &lvPlant{syncer: func(w *world.World, inner workers.Syncer) workers.Syncer {
		return &lvFailingSyncer{Syncer: inner, w: w, fn: fn, uid: uid, times: times}
	}}
}

func (s *lvFailingSyncer) fail(fn string, uid types.UID, c fakeruntime.CallInfo) bool {
	if fn != s.fn || uid != s.uid || s.times == 0 {
		return false
	}
	s.times--
	s.w.CallBegin(fn, uid, c)
	s.w.S.Yield()
	s.w.CallEnd(fn, uid, c, fakeruntime.ErrTransient, false)
	return true
}

func (s *lvFailingSyncer) SyncPod(cancel workers.Event, ut workers.UpdateType, pod, mirror *v1.Pod, st *workers.PodStatus) (bool, error) {
	if s.fail("SyncPod", pod.UID, fakeruntime.CallInfo{Fn: ops.SyncPod, UpdateType: ut, Pod: pod, Cancel: cancel}) {
		return false, fakeruntime.ErrTransient
	}
	return s.Syncer.SyncPod(cancel, ut, pod, mirror, st)
}

func (s *lvFailingSyncer) SyncTerminatingPod(cancel workers.Event, pod *v1.Pod, st *workers.PodStatus, grace int64, fn workers.PodStatusFunc) error {
	if s.fail("SyncTerminatingPod", pod.UID, fakeruntime.CallInfo{Fn: ops.SyncTerminatingPod, Pod: pod, Grace: grace, Cancel: cancel}) {
		return fakeruntime.ErrTransient
	}
	return s.Syncer.SyncTerminatingPod(cancel, pod, st, grace, fn)
}

func (s *lvFailingSyncer) SyncTerminatedPod(cancel workers.Event, pod *v1.Pod, st *workers.PodStatus) error {
	if s.fail("SyncTerminatedPod", pod.UID, fakeruntime.CallInfo{Fn: ops.SyncTerminatedPod, Pod: pod, Cancel: cancel}) {
		return fakeruntime.ErrTransient
	}
	return s.Syncer.SyncTerminatedPod(cancel, pod, st)
}

// lvLossyRuntime loses every wake-up of the worker signal updates/<uid>
// after the first keep ones, from its nth creation on (a reused UID gets a
// new signal per incarnation): a lost wake-up.
func lvLossy(uid types.UID, nth, keep int) *lvPlant {
	return &lvPlant{runtime: func(w *world.World, inner workers.Runtime) workers.Runtime {
		return &lvLossyRuntime{Runtime: inner, name: "updates/" + string(uid), nth: nth, keep: keep}
	}}
}

type lvLossyRuntime struct {
	workers.Runtime
	name      string
	nth, keep int
	made      int
}

func (r *lvLossyRuntime) NewSignal(name string) workers.Signal {
	sg := r.Runtime.NewSignal(name)
	if name != r.name {
		return sg
	}
	if r.made++; r.made < r.nth {
		return sg
	}
	return &lvLossySignal{Signal: sg, keep: r.keep}
}

type lvLossySignal struct {
	workers.Signal
	keep int
}

func (s *lvLossySignal) Notify() {
	if s.keep > 0 {
		s.keep--
		s.Signal.Notify()
	}
}

// lvDeafKills makes every killPodNow miss its completion: its wait sleeps the
// whole timeout (the completion still fires, and is recorded).
func lvDeafKills() *lvPlant {
	return &lvPlant{runtime: func(w *world.World, inner workers.Runtime) workers.Runtime {
		return &lvDeafRuntime{Runtime: inner, s: w.S}
	}}
}

type lvDeafRuntime struct {
	workers.Runtime
	s *sim.Scheduler
}

func (r *lvDeafRuntime) NewEvent(name string) workers.Event {
	e := r.Runtime.NewEvent(name)
	if strings.HasPrefix(name, "killed/") {
		return &lvDeafEvent{Event: e, s: r.s}
	}
	return e
}

type lvDeafEvent struct {
	workers.Event
	s *sim.Scheduler
}

func (e *lvDeafEvent) WaitFor(d time.Duration) bool {
	e.s.Sleep(d)
	return false
}

// lvForgetful drops every re-sync request for uid: the kubelet's work queue
// losing entries, so a failed sync is never retried.
func lvForgetful(uid types.UID) *lvPlant {
	return &lvPlant{queue: func(inner workers.WorkQueue) workers.WorkQueue { return &lvForgetfulQueue{WorkQueue: inner, uid: uid} }}
}

type lvForgetfulQueue struct {
	workers.WorkQueue
	uid types.UID
}

func (q *lvForgetfulQueue) Enqueue(uid types.UID, d time.Duration) {
	if uid != q.uid {
		q.WorkQueue.Enqueue(uid, d)
	}
}
