package realvk

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/virtual-kubelet/virtual-kubelet/errdefs"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	corev1listers "k8s.io/client-go/listers/core/v1"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/realvk/callgate"
	"github.com/podsim/podsim/realvk/explain"
)

// The provider: a fake backend (World.backend, by namespace/name) behind
// gates. Every PodLifecycleHandler call parks; released with OK it takes
// effect on the backend, with Fail it returns an error without effect (an
// error that heals: the next call may succeed), with Missing it answers
// not-found (a provider that lost the pod). A call left parked while other
// moves happen is a slow call. NotifyPods only registers the callback; the
// driver calls it ("notify KEY", in a goroutine of its own, since the
// callback may wait up to about 3 s for the informer).

// providerPod is one pod of the backend.
type providerPod struct {
	pod *v1.Pod
	// version numbers the provider's statuses of the pod (1, 2, …; 0: the
	// status CreatePod starts with); the status message carries it.
	version int
	// dirty: a notification of its status is due.
	dirty bool
	// deleting: the provider deleted it by itself (a deletion timestamp).
	deleting bool
}

// provider is the PodLifecycleHandler and PodNotifier one controller
// generation sees; all generations share the World's backend.
type provider struct {
	w   *World
	gen int
	// lister is the generation's pod lister, the one its
	// deleteDanglingPods compares the provider's pods with (sweepHeld).
	lister corev1listers.PodLister
}

func (p provider) gate(ctx context.Context, op, key string) callgate.Outcome {
	c := &callgate.Call{Gen: p.gen, Op: op, Key: key, Ctx: ctx}
	o := p.w.gates.Park(c)
	if c.Caller == "deleteDanglingPods" {
		p.w.mu.Lock()
		p.w.ev.DanglingCalls = append(p.w.ev.DanglingCalls, explain.DanglingCall{Gen: p.gen, Op: op, Key: key, Outcome: o})
		p.w.mu.Unlock()
	}
	if c.Caller == "syncPodFromKubernetesHandler" {
		p.w.mu.Lock()
		p.w.ev.LastCleanup[key] = p.w.cleanupCallNow(p.gen, op, key, o)
		p.w.mu.Unlock()
	}
	return o
}

// cleanupCallNow describes a cleanup call answered now; mu held.
func (w *World) cleanupCallNow(gen int, op, key string, o callgate.Outcome) explain.CleanupCall {
	c := explain.CleanupCall{Gen: gen, Op: op, Outcome: o}
	if b := w.backend[key]; b != nil {
		c.ProviderUID = b.pod.UID
	}
	if ns, name, ok := strings.Cut(key, "/"); ok {
		c.APIHasName = w.api.get(ns, name) != nil
	}
	return c
}

func (p provider) fail(o callgate.Outcome, key string) error {
	switch o {
	case callgate.Missing:
		return errdefs.NotFoundf("realvk: provider has no pod %s", key)
	case callgate.Dead:
		return context.Canceled
	}
	return fmt.Errorf("realvk: injected provider error for %s", key)
}

func podKey(p *v1.Pod) string { return p.Namespace + "/" + p.Name }

// CreatePod implements PodLifecycleHandler: the pod is Pending in the
// backend (status version 0); its later statuses are the plan's.
func (p provider) CreatePod(ctx context.Context, pod *v1.Pod) (err error) {
	key := podKey(pod)
	defer func() { p.answered(pod.UID, key, "create", err) }()
	if o := p.gate(ctx, "provider.CreatePod", key); o != callgate.OK {
		return p.fail(o, key)
	}
	p.w.mu.Lock()
	defer p.w.mu.Unlock()
	if b := p.w.backend[key]; b != nil {
		p.w.notef("provider.CreatePod %s uid=%s -> exists (uid=%s)", key, pod.UID, b.pod.UID)
		return errdefs.InvalidInputf("realvk: provider already has pod %s", key)
	}
	q := pod.DeepCopy()
	q.Status = statusOf(v1.PodPending, 0)
	p.w.backend[key] = &providerPod{pod: q}
	p.w.notef("provider.CreatePod %s uid=%s -> ok", key, pod.UID)
	p.w.emit(history.VKProviderCreated{UID: pod.UID})
	return nil
}

// statusOf is a provider status: phase, its container's state (VK's
// "running" test reads it), and the version in the message.
func statusOf(phase v1.PodPhase, version int) v1.PodStatus {
	st := v1.PodStatus{Phase: phase, Message: history.VKStatusMessage(version)}
	cs := v1.ContainerStatus{Name: "c"}
	switch phase {
	case v1.PodRunning:
		cs.State.Running = &v1.ContainerStateRunning{}
	case v1.PodSucceeded:
		cs.State.Terminated = &v1.ContainerStateTerminated{Reason: "Completed"}
	case v1.PodFailed:
		cs.State.Terminated = &v1.ContainerStateTerminated{ExitCode: 1, Reason: "Error"}
	default:
		cs.State.Waiting = &v1.ContainerStateWaiting{Reason: "ContainerCreating"}
	}
	st.ContainerStatuses = []v1.ContainerStatus{cs}
	return st
}

// UpdatePod implements PodLifecycleHandler: the spec changes, the status
// stays.
func (p provider) UpdatePod(ctx context.Context, pod *v1.Pod) (err error) {
	key := podKey(pod)
	defer func() { p.answered(pod.UID, key, "update", err) }()
	if o := p.gate(ctx, "provider.UpdatePod", key); o != callgate.OK {
		return p.fail(o, key)
	}
	p.w.mu.Lock()
	defer p.w.mu.Unlock()
	b := p.w.backend[key]
	if b == nil {
		p.w.notef("provider.UpdatePod %s uid=%s -> not-found", key, pod.UID)
		return errdefs.NotFoundf("realvk: provider has no pod %s", key)
	}
	p.w.notef("provider.UpdatePod %s uid=%s (provider uid=%s) -> ok", key, pod.UID, b.pod.UID)
	return nil
}

// DeletePod implements PodLifecycleHandler: the pod leaves the backend.
func (p provider) DeletePod(ctx context.Context, pod *v1.Pod) (err error) {
	key := podKey(pod)
	defer func() { p.answered(pod.UID, key, "delete", err) }()
	if o := p.gate(ctx, "provider.DeletePod", key); o != callgate.OK {
		return p.fail(o, key)
	}
	p.w.mu.Lock()
	defer p.w.mu.Unlock()
	b := p.w.backend[key]
	if b == nil {
		p.w.notef("provider.DeletePod %s uid=%s -> not-found", key, pod.UID)
		return errdefs.NotFoundf("realvk: provider has no pod %s", key)
	}
	delete(p.w.backend, key)
	p.w.notef("provider.DeletePod %s uid=%s (provider uid=%s) -> ok", key, pod.UID, b.pod.UID)
	p.w.emit(history.VKProviderDeleted{UID: b.pod.UID})
	return nil
}

// GetPod implements PodLifecycleHandler.
func (p provider) GetPod(ctx context.Context, ns, name string) (_ *v1.Pod, err error) {
	key := ns + "/" + name
	defer func() { p.answered("", key, "get", err) }()
	if o := p.gate(ctx, "provider.GetPod", key); o != callgate.OK {
		return nil, p.fail(o, key)
	}
	p.w.mu.Lock()
	defer p.w.mu.Unlock()
	if b := p.w.backend[key]; b != nil {
		return b.pod.DeepCopy(), nil
	}
	return nil, errdefs.NotFoundf("realvk: provider has no pod %s", key)
}

// GetPodStatus implements PodLifecycleHandler.
func (p provider) GetPodStatus(ctx context.Context, ns, name string) (_ *v1.PodStatus, err error) {
	key := ns + "/" + name
	defer func() { p.answered("", key, "status", err) }()
	if o := p.gate(ctx, "provider.GetPodStatus", key); o != callgate.OK {
		return nil, p.fail(o, key)
	}
	p.w.mu.Lock()
	defer p.w.mu.Unlock()
	if b := p.w.backend[key]; b != nil {
		return b.pod.Status.DeepCopy(), nil
	}
	return nil, errdefs.NotFoundf("realvk: provider has no pod %s", key)
}

// GetPods implements PodLifecycleHandler, sorted by key.
func (p provider) GetPods(ctx context.Context) ([]*v1.Pod, error) {
	if o := p.gate(ctx, "provider.GetPods", ""); o != callgate.OK {
		return nil, p.fail(o, "")
	}
	p.w.mu.Lock()
	defer p.w.mu.Unlock()
	var out []*v1.Pod
	given, held := map[string]string{}, map[string]types.UID{}
	for _, key := range p.w.backendKeys() {
		pod := p.w.backend[key].pod.DeepCopy()
		given[fmt.Sprintf("%p", pod)] = key
		if api, err := p.lister.Pods(pod.Namespace).Get(pod.Name); err == nil {
			held[key] = api.UID
		}
		out = append(out, pod)
	}
	p.w.ev.PodsGiven[p.gen], p.w.ev.SweepHeld[p.gen] = given, held
	return out, nil
}

// NotifyPods implements PodNotifier: it registers the generation's
// callback.
func (p provider) NotifyPods(_ context.Context, cb func(*v1.Pod)) {
	p.w.mu.Lock()
	defer p.w.mu.Unlock()
	p.w.notifyCB[p.gen] = cb
}

func (w *World) backendKeys() []string {
	keys := make([]string, 0, len(w.backend))
	for k := range w.backend {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// Notifiable lists the backend pods with a notification due, sorted.
func (w *World) Notifiable() []string {
	var out []string
	for _, key := range w.backendKeys() {
		if w.backend[key].dirty {
			out = append(out, key)
		}
	}
	return out
}

// notify calls the current generation's callback with the backend pod's
// status as it is now, in a goroutine of its own (the callback may poll
// for the informer).
func (w *World) notify(key string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	b := w.backend[key]
	cb := w.notifyCB[w.gen]
	if b == nil || !b.dirty || cb == nil || !w.running {
		return false
	}
	b.dirty = false
	w.notifySeq++
	pod := b.pod.DeepCopy()
	w.ev.Notifies[w.notifySeq] = explain.Notify{Gen: w.gen, UID: pod.UID, Version: b.version, Deleting: b.deleting}
	w.notef("notify %s uid=%s phase=%s v%d", key, pod.UID, pod.Status.Phase, b.version)
	w.emit(history.VKNotified{UID: pod.UID, Phase: pod.Status.Phase, Version: b.version, Deleting: b.deleting})
	if b.deleting {
		w.ev.DeletingNotified[pod.UID] = true
	}
	go cb(pod)
	return true
}

// byUID is the backend pod of uid, or nil.
func (w *World) byUID(uid types.UID) *providerPod {
	for _, key := range w.backendKeys() {
		if b := w.backend[key]; b.pod.UID == uid {
			return b
		}
	}
	return nil
}

// setStatus is a plan's vk-status: a new status (a terminal one stays),
// or with phase "" the same one, to be notified.
func (w *World) setStatus(uid types.UID, phase v1.PodPhase) bool {
	b := w.byUID(uid)
	if b == nil {
		return false
	}
	if phase != "" && !terminal(b.pod.Status.Phase) {
		b.version++
		b.pod.Status = statusOf(phase, b.version)
	}
	b.dirty = true
	return true
}

// providerDelete is a plan's vk-provider-delete: the provider deletes the
// pod by itself (a deletion timestamp, grace 0) and is to notify it.
func (w *World) providerDelete(uid types.UID) bool {
	b := w.byUID(uid)
	if b == nil || b.deleting {
		return false
	}
	at := metav1.NewTime(time.Now())
	zero := int64(0)
	b.pod.DeletionTimestamp, b.pod.DeletionGracePeriodSeconds = &at, &zero
	b.deleting, b.dirty = true, true
	return true
}

// providerPodFor is a plan's vk-provider-pod: the backend already runs
// uid (status Running, version 1) under the name of uid's API object if
// one has it (a former controller created it), else pod-<uid> (dangling).
func (w *World) providerPodFor(uid types.UID) bool {
	if w.byUID(uid) != nil {
		return false
	}
	name := "pod-" + string(uid)
	items, _ := w.api.List()
	for _, p := range items {
		if p.UID == uid {
			name = p.Name
		}
	}
	key := Namespace + "/" + name
	if w.backend[key] != nil {
		return false
	}
	pod := podObject(uid, name)
	pod.Status = statusOf(v1.PodRunning, 1)
	w.backend[key] = &providerPod{pod: pod, version: 1}
	w.emit(history.VKProviderCreated{UID: uid})
	return true
}

// finalProvider is the backend at the end, by UID.
func (w *World) finalProvider() []history.VKProviderPod {
	var out []history.VKProviderPod
	for _, key := range w.backendKeys() {
		b := w.backend[key]
		out = append(out, history.VKProviderPod{UID: b.pod.UID, Phase: b.pod.Status.Phase, Version: b.version, Deleting: b.deleting})
	}
	// stable: two backends of one UID (no plan makes them) stay in key order
	slices.SortStableFunc(out, func(x, y history.VKProviderPod) int { return cmp.Compare(x.UID, y.UID) })
	return out
}
