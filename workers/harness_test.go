package workers

import (
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// testRuntime wraps an env's Runtime for the behaviour tests, the same way
// on both runtimes: podLock checks the invariants before every release (so
// a broken invariant is reported at the release that broke it), wake-up
// signals can be held (the upstream tests' WorkChannel Hold/Release), and
// every Event is remembered by name. A hold is an Event of the wrapped
// runtime, so a held worker blocks the way the env sees: durably blocked in
// the synctest bubble, parked in the simulation.
type testRuntime struct {
	Runtime
	t *testing.T
	// check is set once, before any concurrency, to the workers'
	// CheckInvariantsLocked.
	check func() error

	// mu guards the maps only: no runtime operation runs under it, since a
	// simulated one may hand the baton to a goroutine that then needs mu.
	mu     sync.Mutex
	holds  map[string]Event
	events map[string][]Event
}

func newTestRuntime(t *testing.T, base Runtime) *testRuntime {
	return &testRuntime{Runtime: base, t: t, holds: map[string]Event{}, events: map[string][]Event{}}
}

func (r *testRuntime) NewMutex(name string) sync.Locker {
	inner := r.Runtime.NewMutex(name)
	if name != "podLock" {
		return inner
	}
	return &checkedLock{inner: inner, rt: r}
}

func (r *testRuntime) NewSignal(name string) Signal {
	return &holdableSignal{Signal: r.Runtime.NewSignal(name), rt: r, name: name}
}

func (r *testRuntime) NewEvent(name string) Event {
	ev := r.Runtime.NewEvent(name)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events[name] = append(r.events[name], ev)
	return ev
}

// eventNames lists the names of the Events created so far, sorted.
func (r *testRuntime) eventNames() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Sorted(maps.Keys(r.events))
}

// hold delays the delivery of uid's wake-ups until release.
func (r *testRuntime) hold(uid types.UID) {
	name := "updates/" + string(uid)
	ev := r.Runtime.NewEvent("hold/" + name)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.holds[name] = ev
}

// release lets uid's held wake-ups through; it fires an Event, so it runs
// in a goroutine of the env (harness.release).
func (r *testRuntime) release(uid types.UID) {
	r.mu.Lock()
	ev := r.holds["updates/"+string(uid)]
	delete(r.holds, "updates/"+string(uid))
	r.mu.Unlock()
	if ev != nil {
		ev.Fire()
	}
}

// releaseAll releases every hold, in name order (deterministic wake-ups).
func (r *testRuntime) releaseAll() {
	r.mu.Lock()
	names := slices.Sorted(maps.Keys(r.holds))
	evs := make([]Event, len(names))
	for i, name := range names {
		evs[i] = r.holds[name]
		delete(r.holds, name)
	}
	r.mu.Unlock()
	for _, ev := range evs {
		ev.Fire()
	}
}

func (r *testRuntime) waitIfHeld(name string) {
	r.mu.Lock()
	ev := r.holds[name]
	r.mu.Unlock()
	if ev != nil {
		ev.Wait()
	}
}

// checkedLock checks the workers' invariants before releasing podLock.
type checkedLock struct {
	inner sync.Locker
	rt    *testRuntime
}

func (l *checkedLock) Lock() { l.inner.Lock() }

func (l *checkedLock) Unlock() {
	if l.rt.check != nil {
		if err := l.rt.check(); err != nil {
			l.rt.t.Errorf("at podLock release: %v", err)
		}
	}
	l.inner.Unlock()
}

// holdableSignal delays the delivery of a wake-up while its name is held.
type holdableSignal struct {
	Signal
	rt   *testRuntime
	name string
}

func (s *holdableSignal) Wait() bool {
	ok := s.Signal.Wait()
	s.rt.waitIfHeld(s.name)
	return ok
}

// harness is one PodWorkers over the fakes, in one env.
type harness struct {
	t      *testing.T
	e      env
	rt     *testRuntime
	syncer *fakeSyncer
	cache  *fakeCache
	queue  *Queue
	w      *PodWorkers
}

// runHarness runs f against a fresh harness in every env of sched, and shuts
// the workers down afterwards, so that each env ends with no goroutine left.
func runHarness(t *testing.T, sched schedules, f func(t *testing.T, h *harness)) {
	t.Helper()
	forEachEnv(t, sched, func(t *testing.T, e env) {
		h := newHarness(t, e)
		defer h.stop()
		f(t, h)
	})
}

// newHarness returns pod workers over the fakes in e, with the invariants
// checked at every release of podLock.
func newHarness(t *testing.T, e env) *harness {
	rt := newTestRuntime(t, e.Runtime())
	h := &harness{t: t, e: e, rt: rt, syncer: newFakeSyncer(e.Runtime()), cache: newFakeCache(), queue: NewQueue(rt)}
	h.w = New(Config{Runtime: rt, Syncer: h.syncer, Cache: h.cache, Queue: h.queue})
	rt.check = h.w.CheckInvariantsLocked
	return h
}

func (h *harness) stop() {
	if h.e.Failed() {
		return // the failed simulation is unwound by Close
	}
	h.do(func() {
		h.syncer.unblockAll()
		h.rt.releaseAll()
	})
	h.do(h.w.Shutdown)
}

// do runs f as a client goroutine of the env and lets every goroutine run
// until all are blocked.
func (h *harness) do(f func()) {
	h.t.Helper()
	h.e.Do("client", f)
}

// ask returns what f returns, run as a client goroutine of the env.
func ask[T any](h *harness, f func() T) T {
	h.t.Helper()
	var v T
	h.do(func() { v = f() })
	return v
}

// update calls UpdatePod and lets every worker run until all are blocked.
func (h *harness) update(opts UpdatePodOptions) { h.do(func() { h.w.UpdatePod(opts) }) }

func (h *harness) create(pod *v1.Pod) {
	h.update(UpdatePodOptions{UpdateType: SyncPodCreate, Pod: pod})
}
func (h *harness) modify(pod *v1.Pod) {
	h.update(UpdatePodOptions{UpdateType: SyncPodUpdate, Pod: pod})
}
func (h *harness) kill(pod *v1.Pod) { h.update(UpdatePodOptions{UpdateType: SyncPodKill, Pod: pod}) }

func (h *harness) syncKnown(pods []*v1.Pod) KnownPods {
	return ask(h, func() KnownPods { return h.w.SyncKnownPods(pods) })
}

// unblock lets the gated calls of fn for uid return.
func (h *harness) unblock(fn string, uid types.UID) { h.do(func() { h.syncer.unblock(fn, uid) }) }

// release lets uid's held wake-ups through.
func (h *harness) release(uid types.UID) { h.do(func() { h.rt.release(uid) }) }

// fired reports whether ev fired (Fired is a scheduling point).
func (h *harness) fired(ev Event) bool { return ask(h, ev.Fired) }

// callResult is what a call that may block did, so far.
type callResult struct {
	done bool
	err  error
	took time.Duration
}

// blockingCall is a call that may block, run in its own goroutine. mu
// orders the test's reads against the call's late return on the real
// runtime (synctest.Wait orders only what happened before it).
type blockingCall struct {
	mu     sync.Mutex
	result callResult
}

// get returns what the call did so far.
func (c *blockingCall) get() callResult {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.result
}

// killNow starts KillPodNow in its own goroutine and returns once nothing
// can run; get().done says whether it has returned.
func (h *harness) killNow(pod *v1.Pod, evict bool, grace *int64, statusFn PodStatusFunc) *blockingCall {
	h.t.Helper()
	c := &blockingCall{}
	h.e.Do("killNow", func() {
		start := h.rt.Now()
		err := h.w.KillPodNow(pod, evict, grace, statusFn)
		took := h.rt.Now().Sub(start)
		c.mu.Lock()
		defer c.mu.Unlock()
		c.result = callResult{done: true, err: err, took: took}
	})
	return c
}

// history is the compact call history of uid.
func (h *harness) history(uid types.UID) string {
	var parts []string
	for _, c := range h.syncer.callsFor(uid) {
		parts = append(parts, c.String())
	}
	return strings.Join(parts, " ")
}

// podState returns the snapshot of uid, if it has a record.
func (h *harness) podState(uid types.UID) (PodStateSnapshot, bool) {
	var snap PodStateSnapshot
	var ok bool
	h.do(func() { snap, ok = h.w.PodState(uid) })
	return snap, ok
}

// state returns the snapshot of uid, failing the test if it is unknown.
func (h *harness) state(uid types.UID) PodStateSnapshot {
	h.t.Helper()
	snap, ok := h.podState(uid)
	if !ok {
		h.t.Fatalf("pod %s: got no record, want one", uid)
	}
	return snap
}

func (h *harness) states() []PodStateSnapshot { return ask(h, h.w.PodStates) }

// record returns the internal record of uid (read under the lock; its fields
// may be read while nothing runs).
func (h *harness) record(uid types.UID) *podSyncStatus {
	return ask(h, func() *podSyncStatus {
		h.w.podLock.Lock()
		defer h.w.podLock.Unlock()
		return h.w.records.at(uid)
	})
}

// newPod is an API pod in namespace "ns" with a 30 s spec grace period.
func newPod(uid, name string) *v1.Pod {
	grace := int64(30)
	return &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{UID: types.UID(uid), Name: name, Namespace: "ns",
			Annotations: map[string]string{ConfigSourceAnnotationKey: ApiserverSource}},
		Spec: v1.PodSpec{TerminationGracePeriodSeconds: &grace},
	}
}

// newStaticPod is a pod from the file source.
func newStaticPod(uid, name string) *v1.Pod {
	pod := newPod(uid, name)
	pod.Annotations = map[string]string{ConfigSourceAnnotationKey: "file"}
	return pod
}

func withDeletion(pod *v1.Pod, grace int64) *v1.Pod {
	out := pod.DeepCopy()
	now := metav1.NewTime(time.Unix(1, 0))
	out.DeletionTimestamp = &now
	out.DeletionGracePeriodSeconds = &grace
	return out
}

func withPhase(pod *v1.Pod, phase v1.PodPhase) *v1.Pod {
	out := pod.DeepCopy()
	out.Status.Phase = phase
	return out
}

func withLabels(pod *v1.Pod, labels map[string]string) *v1.Pod {
	out := pod.DeepCopy()
	out.Labels = labels
	return out
}

func int64Ptr(v int64) *int64 { return &v }
