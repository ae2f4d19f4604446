package workers

import (
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/clock"
)

// The package tests run the pod workers on the real runtime inside a
// testing/synctest bubble: time is fake, synctest.Wait() returns once every
// goroutine is durably blocked, and -race sees the real concurrency.

// testRuntime wraps RealRuntime: podLock checks the invariants before every
// release (as the simulated runtime does), wake-up signals can be held (the
// upstream tests' WorkChannel Hold/Release), and every Event is remembered
// by name.
type testRuntime struct {
	*RealRuntime
	t *testing.T
	// check is set once, before any concurrency, to the workers'
	// CheckInvariantsLocked.
	check func() error

	mu     sync.Mutex
	holds  map[string]chan struct{}
	events map[string][]Event
}

func newTestRuntime(t *testing.T) *testRuntime {
	return &testRuntime{
		RealRuntime: NewRealRuntime(clock.RealClock{}, 1),
		t:           t,
		holds:       map[string]chan struct{}{},
		events:      map[string][]Event{},
	}
}

func (r *testRuntime) NewMutex(name string) sync.Locker {
	inner := r.RealRuntime.NewMutex(name)
	if name != "podLock" {
		return inner
	}
	return &checkedLock{inner: inner, rt: r}
}

func (r *testRuntime) NewSignal(name string) Signal {
	return &holdableSignal{Signal: r.RealRuntime.NewSignal(name), rt: r, name: name}
}

func (r *testRuntime) NewEvent(name string) Event {
	ev := r.RealRuntime.NewEvent(name)
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

func (r *testRuntime) hold(uid types.UID) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.holds["updates/"+string(uid)] = make(chan struct{})
}

func (r *testRuntime) release(uid types.UID) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if ch, ok := r.holds["updates/"+string(uid)]; ok {
		close(ch)
		delete(r.holds, "updates/"+string(uid))
	}
}

func (r *testRuntime) releaseAll() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for name, ch := range r.holds {
		close(ch)
		delete(r.holds, name)
	}
}

func (r *testRuntime) waitIfHeld(name string) {
	r.mu.Lock()
	ch := r.holds[name]
	r.mu.Unlock()
	if ch != nil {
		<-ch
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

// harness is one PodWorkers over the fakes.
type harness struct {
	t      *testing.T
	rt     *testRuntime
	syncer *fakeSyncer
	cache  *fakeCache
	queue  *Queue
	w      *PodWorkers
}

// inBubble runs f against a fresh harness inside a synctest bubble and
// shuts the workers down afterwards, so that the bubble ends with no
// goroutine left.
func inBubble(t *testing.T, f func(h *harness)) {
	t.Helper()
	synctest.Test(t, func(t *testing.T) {
		rt := newTestRuntime(t)
		h := &harness{t: t, rt: rt, syncer: newFakeSyncer(), cache: newFakeCache(), queue: NewQueue(rt)}
		h.w = New(Config{Runtime: rt, Syncer: h.syncer, Cache: h.cache, Queue: h.queue})
		rt.check = h.w.CheckInvariantsLocked
		defer h.stop()
		f(h)
	})
}

func (h *harness) stop() {
	h.syncer.unblockAll()
	h.rt.releaseAll()
	synctest.Wait()
	h.w.Shutdown()
	synctest.Wait()
}

// update calls UpdatePod and lets every worker run until all are blocked.
func (h *harness) update(opts UpdatePodOptions) {
	h.w.UpdatePod(opts)
	synctest.Wait()
}

func (h *harness) create(pod *v1.Pod) {
	h.update(UpdatePodOptions{UpdateType: SyncPodCreate, Pod: pod})
}
func (h *harness) modify(pod *v1.Pod) {
	h.update(UpdatePodOptions{UpdateType: SyncPodUpdate, Pod: pod})
}
func (h *harness) kill(pod *v1.Pod) { h.update(UpdatePodOptions{UpdateType: SyncPodKill, Pod: pod}) }

// history is the compact call history of uid.
func (h *harness) history(uid types.UID) string {
	var parts []string
	for _, c := range h.syncer.callsFor(uid) {
		parts = append(parts, c.String())
	}
	return strings.Join(parts, " ")
}

// state returns the snapshot of uid, failing the test if it is unknown.
func (h *harness) state(uid types.UID) PodStateSnapshot {
	h.t.Helper()
	snap, ok := h.w.PodState(uid)
	if !ok {
		h.t.Fatalf("pod %s: got no record, want one", uid)
	}
	return snap
}

// record returns the internal record of uid (under the lock, for reading
// fields in a quiescent test).
func (h *harness) record(uid types.UID) *podSyncStatus {
	h.w.podLock.Lock()
	defer h.w.podLock.Unlock()
	return h.w.podSyncStatuses[uid]
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
