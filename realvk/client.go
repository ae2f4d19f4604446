package realvk

import (
	"context"
	"fmt"
	"strings"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/realvk/callgate"
	"github.com/podsim/podsim/realvk/explain"
)

// podClient is the controller's PodClient: every call parks at a gate and,
// released with OK, goes to the API server model (api.go). The gate is in
// this wrapper, never in a fake-clientset reactor: the fake runs reactors
// under a mutex, and a goroutine waiting on a mutex is not durably blocked,
// so synctest.Wait would hang instead of reporting a deadlock.
type podClient struct {
	w   *World
	gen int
}

// Pods implements corev1client.PodsGetter.
func (c podClient) Pods(ns string) corev1client.PodInterface { return &podsOf{c: c, ns: ns} }

// podsOf implements the calls the controller makes. Every other method is
// the nil embedded interface and panics if called, which would tell us
// the controller grew a new dependency.
type podsOf struct {
	corev1client.PodInterface
	c  podClient
	ns string
}

var errInjected = apierrors.NewInternalError(fmt.Errorf("realvk: injected API server error"))

func (p *podsOf) gate(ctx context.Context, op, name string) error {
	_, err := p.gateCall(ctx, op, name)
	return err
}

// gateCall parks the call and returns it (its Caller) with the outcome's
// error.
func (p *podsOf) gateCall(ctx context.Context, op, name string) (*callgate.Call, error) {
	c := &callgate.Call{Gen: p.c.gen, Op: op, Key: p.ns + "/" + name, Ctx: ctx}
	switch p.c.w.gates.Park(c) {
	case callgate.OK:
		return c, nil
	case callgate.Dead:
		return c, context.Canceled
	}
	return c, errInjected
}

// UpdateStatus implements the status subresource call.
func (p *podsOf) UpdateStatus(ctx context.Context, pod *v1.Pod, _ metav1.UpdateOptions) (*v1.Pod, error) {
	c, err := p.gateCall(ctx, "api.UpdateStatus", pod.Name)
	p.c.w.mu.Lock()
	defer p.c.w.mu.Unlock()
	if err != nil {
		if err == errInjected {
			p.c.w.emit(history.VKStatusWriteFailed{UID: pod.UID, Err: "transient"})
		}
		return nil, err
	}
	if c.Caller == "updatePodStatus" && p.c.w.ev.DeletingNotified[pod.UID] {
		p.c.w.ev.StatusInsteadOfDelete[pod.UID] = true
	}
	key := p.ns + "/" + pod.Name
	if cur := p.c.w.api.get(p.ns, pod.Name); cur != nil {
		p.c.w.ev.LastStatusWrite[key] = explain.StatusAttempt{Caller: c.Caller, UID: pod.UID, APIUID: cur.UID, Run: p.c.w.ev.StatusRuns[key], Gen: c.Gen}
	}
	out, err := p.c.w.api.UpdateStatus(pod)
	if a, ok := p.c.w.ev.LastStatusWrite[key]; ok && apierrors.IsConflict(err) {
		a.Conflict = true
		p.c.w.ev.LastStatusWrite[key] = a
	}
	if err != nil {
		p.c.w.emit(history.VKStatusWriteFailed{UID: pod.UID, Err: strings.ReplaceAll(errWord(err), "-", " ")})
	} else {
		p.c.w.statusSeq++
		p.c.w.ev.StatusWrites[out.UID] = append(p.c.w.ev.StatusWrites[out.UID],
			explain.StatusWrite{Caller: c.Caller, Version: history.VKStatusVersion(pod.Status.Message), Seq: p.c.w.statusSeq})
	}
	p.c.w.notef("api.UpdateStatus %s/%s uid=%s rv=%q phase=%s -> %s", p.ns, pod.Name, pod.UID, pod.ResourceVersion, pod.Status.Phase, errWord(err))
	return out, err
}

// Delete implements pod deletion with options.
func (p *podsOf) Delete(ctx context.Context, name string, o metav1.DeleteOptions) error {
	// The label carries the UID precondition: the delete queue's two
	// workers may delete two UIDs of one name at once.
	gated := name
	if uid := preconditionUID(o); uid != "none" {
		gated += "/" + uid
	}
	c, err := p.gateCall(ctx, "api.Delete", gated)
	if err != nil {
		return err
	}
	p.c.w.mu.Lock()
	defer p.c.w.mu.Unlock()
	// A delete whose precondition names another UID cannot remove cur
	// (the API server answers Conflict): it is no delete of cur.
	if cur := p.c.w.api.get(p.ns, name); cur != nil && (preconditionUID(o) == "none" || preconditionUID(o) == string(cur.UID)) {
		p.c.w.ev.DeleteCaller[cur.UID] = c.Caller
		if b := p.c.w.backend[p.ns+"/"+name]; b != nil && b.pod.UID == cur.UID {
			p.c.w.ev.DeletedWhileRunning[cur.UID] = c.Caller
		}
	}
	err = p.c.w.api.Delete("controller", p.ns, name, o)
	p.c.w.notef("api.Delete %s/%s grace=%s uid-precondition=%s -> %s", p.ns, name, int64Word(o.GracePeriodSeconds), preconditionUID(o), errWord(err))
	return err
}

// Get implements a pod read (not used by v1.14.1's controller; gated all
// the same, should it start to).
func (p *podsOf) Get(ctx context.Context, name string, _ metav1.GetOptions) (*v1.Pod, error) {
	if err := p.gate(ctx, "api.Get", name); err != nil {
		return nil, err
	}
	p.c.w.mu.Lock()
	defer p.c.w.mu.Unlock()
	if pod := p.c.w.api.get(p.ns, name); pod != nil {
		return pod, nil
	}
	return nil, apierrors.NewNotFound(podsGVR.GroupResource(), name)
}

func errWord(err error) string {
	switch {
	case err == nil:
		return "ok"
	case apierrors.IsNotFound(err):
		return "not-found"
	case apierrors.IsConflict(err):
		return "conflict"
	case apierrors.IsInvalid(err):
		return "invalid"
	}
	return "error"
}

func int64Word(p *int64) string {
	if p == nil {
		return "nil"
	}
	return fmt.Sprint(*p)
}

func preconditionUID(o metav1.DeleteOptions) string {
	if o.Preconditions == nil || o.Preconditions.UID == nil {
		return "none"
	}
	return string(*o.Preconditions.UID)
}
