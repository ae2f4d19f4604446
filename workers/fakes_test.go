package workers

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
)

// syncCall is one recorded Syncer call.
type syncCall struct {
	fn         string
	uid        types.UID
	updateType UpdateType
	grace      int64
	name       string
	labels     map[string]string
	statusFn   PodStatusFunc
	cancel     Event
}

// String is the compact form used in history assertions.
func (c syncCall) String() string {
	switch c.fn {
	case "SyncPod":
		return fmt.Sprintf("SyncPod(%s)", c.updateType)
	case "SyncTerminatingPod":
		return fmt.Sprintf("SyncTerminatingPod(%d)", c.grace)
	}
	return c.fn
}

type gateKey struct {
	fn  string
	uid types.UID
}

// syncOutcome is what a fake Syncer call returns.
type syncOutcome struct {
	err        error
	isTerminal bool
}

// fakeSyncer records calls, can block a (fn, uid) on a gate and returns
// queued outcomes (default: success, not terminal). Gates are Events of the
// env's runtime, so a gated call blocks the way the env sees (a real channel
// would stall the simulation). mu guards the maps and the calls only; no
// runtime operation runs under it.
type fakeSyncer struct {
	rt       Runtime
	mu       sync.Mutex
	calls    []syncCall
	gates    map[gateKey]Event
	outcomes map[gateKey][]syncOutcome
}

func newFakeSyncer(rt Runtime) *fakeSyncer {
	return &fakeSyncer{rt: rt, gates: map[gateKey]Event{}, outcomes: map[gateKey][]syncOutcome{}}
}

// block makes the next calls of fn for uid wait until unblock.
func (f *fakeSyncer) block(fn string, uid types.UID) {
	gate := f.rt.NewEvent("gate/" + fn + "/" + string(uid))
	f.mu.Lock()
	defer f.mu.Unlock()
	f.gates[gateKey{fn, uid}] = gate
}

// unblock fires the gate of (fn, uid); it runs in a goroutine of the env
// (harness.unblock).
func (f *fakeSyncer) unblock(fn string, uid types.UID) {
	f.mu.Lock()
	gate := f.gates[gateKey{fn, uid}]
	delete(f.gates, gateKey{fn, uid})
	f.mu.Unlock()
	if gate != nil {
		gate.Fire()
	}
}

// unblockAll fires every gate, in (fn, uid) order (deterministic wake-ups).
func (f *fakeSyncer) unblockAll() {
	f.mu.Lock()
	keys := slices.SortedFunc(maps.Keys(f.gates), func(a, b gateKey) int {
		return cmp.Or(cmp.Compare(a.fn, b.fn), cmp.Compare(a.uid, b.uid))
	})
	gates := make([]Event, len(keys))
	for i, k := range keys {
		gates[i] = f.gates[k]
		delete(f.gates, k)
	}
	f.mu.Unlock()
	for _, gate := range gates {
		gate.Fire()
	}
}

// respond queues outcomes for the next calls of fn for uid.
func (f *fakeSyncer) respond(fn string, uid types.UID, outcomes ...syncOutcome) {
	f.mu.Lock()
	defer f.mu.Unlock()
	k := gateKey{fn, uid}
	f.outcomes[k] = append(f.outcomes[k], outcomes...)
}

func (f *fakeSyncer) record(c syncCall) syncOutcome {
	f.mu.Lock()
	f.calls = append(f.calls, c)
	k := gateKey{c.fn, c.uid}
	gate := f.gates[k]
	var out syncOutcome
	if queued := f.outcomes[k]; len(queued) > 0 {
		out, f.outcomes[k] = queued[0], queued[1:]
	}
	f.mu.Unlock()
	if gate != nil {
		gate.Wait()
	}
	return out
}

func podCall(fn string, pod *v1.Pod) syncCall {
	return syncCall{fn: fn, uid: pod.UID, name: pod.Name, labels: pod.Labels}
}

func (f *fakeSyncer) SyncPod(cancel Event, updateType UpdateType, pod, _ *v1.Pod, _ *PodStatus) (bool, error) {
	c := podCall("SyncPod", pod)
	c.updateType, c.cancel = updateType, cancel
	out := f.record(c)
	return out.isTerminal, out.err
}

func (f *fakeSyncer) SyncTerminatingPod(cancel Event, pod *v1.Pod, _ *PodStatus, grace int64, statusFn PodStatusFunc) error {
	c := podCall("SyncTerminatingPod", pod)
	c.grace, c.statusFn, c.cancel = grace, statusFn, cancel
	return f.record(c).err
}

func (f *fakeSyncer) SyncTerminatingRuntimePod(cancel Event, rp *RunningPod) error {
	return f.record(syncCall{fn: "SyncTerminatingRuntimePod", uid: rp.ID, name: rp.Name, cancel: cancel}).err
}

func (f *fakeSyncer) SyncTerminatedPod(cancel Event, pod *v1.Pod, _ *PodStatus) error {
	c := podCall("SyncTerminatedPod", pod)
	c.cancel = cancel
	return f.record(c).err
}

func (f *fakeSyncer) callsFor(uid types.UID) []syncCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []syncCall
	for _, c := range f.calls {
		if c.uid == uid {
			out = append(out, c)
		}
	}
	return out
}

func (f *fakeSyncer) allCalls() []syncCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.calls)
}

// fakeCache answers at once: Get misses return an empty status (the
// kubelet's makeDefaultData); errors can be configured per UID.
type fakeCache struct {
	mu       sync.Mutex
	getErr   map[types.UID]error
	running  map[types.UID]int
	newerErr map[types.UID][]error
}

func newFakeCache() *fakeCache {
	return &fakeCache{getErr: map[types.UID]error{}, running: map[types.UID]int{}, newerErr: map[types.UID][]error{}}
}

func (c *fakeCache) Get(uid types.UID) (*PodStatus, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.getErr[uid]; err != nil {
		return nil, err
	}
	return &PodStatus{ID: uid, RunningContainers: c.running[uid]}, nil
}

func (c *fakeCache) GetNewerThan(uid types.UID, minTime time.Time) (*PodStatus, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if errs := c.newerErr[uid]; len(errs) > 0 {
		c.newerErr[uid] = errs[1:]
		return nil, errs[0]
	}
	return &PodStatus{ID: uid, RunningContainers: c.running[uid], Timestamp: minTime.Add(time.Second)}, nil
}
