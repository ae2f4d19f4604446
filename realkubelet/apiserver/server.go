// Package apiserver is a small model of the Kubernetes API server's pod
// store, in front of client-go's fake clientset, for the real kubelet
// components that realkubelet drives (the status manager first).
//
// The fake clientset's object tracker replaces whole objects and deletes at
// once. The components under test depend on four rules of the real API
// server that it does not have, so this model keeps the pods itself and
// client-go's fake reactors only route the clientset's pod calls to it:
//
//   - graceful deletion: a delete with a grace period > 0 sets the deletion
//     timestamp (now + grace) and DeletionGracePeriodSeconds and keeps the
//     object; a later delete may only shorten the grace; grace 0 removes it.
//     As the pod strategy does, a pod not bound to a node or already in a
//     terminal phase is deleted at once, and a delete without a grace takes
//     the pod's TerminationGracePeriodSeconds (30 s if unset).
//   - preconditions: a delete's UID and ResourceVersion preconditions must
//     match the stored object, else a Conflict; a status patch that names
//     another UID (PatchPodStatus puts the UID in every patch) is a
//     Conflict too.
//   - the status subresource: a status write (update or patch of "status")
//     changes only the status; a spec write (update) never changes the
//     status nor the deletion fields.
//   - resourceVersion: every write increments the store's version; an
//     update whose ResourceVersion is set and stale is a Conflict.
//
// Nothing here blocks: every call returns at once, and the model keeps no
// goroutine, so it is safe inside a synctest bubble. Every write is
// recorded as an Op, in order, with the actor whose client made it.
package apiserver

import (
	"fmt"
	"slices"
	"strconv"
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
)

// DefaultGrace is the pod's termination grace when its spec has none.
const DefaultGrace = int64(30)

var podsResource = schema.GroupResource{Resource: "pods"}

// Verb names an Op.
type Verb string

// The verbs an Op records.
const (
	Create         Verb = "create"
	Update         Verb = "update"
	UpdateStatus   Verb = "update-status"
	PatchStatus    Verb = "patch-status"
	DeleteGraceful Verb = "delete-graceful" // the deletion timestamp was set or shortened
	DeleteRemoved  Verb = "delete-removed"  // the object left the store
)

// Op is one successful write to the store.
type Op struct {
	Actor string
	Verb  Verb
	UID   types.UID
	Name  string
	// Phase is the object's status phase after the write; Grace its
	// DeletionGracePeriodSeconds (nil if it has none).
	Phase v1.PodPhase
	Grace *int64
	// From is the status phase before the write; PhaseChanged: the write
	// changed it.
	From         v1.PodPhase
	PhaseChanged bool
	// Ready: after the write the object's Ready or ContainersReady
	// condition is True; Disrupted: its DisruptionTarget condition is.
	Ready, Disrupted bool
}

// Server is the pod store. It is not safe for concurrent use: the driver
// calls it, directly or through a client, between steps, one call at a time.
type Server struct {
	now  func() time.Time
	rv   uint64
	pods map[string]*v1.Pod // by namespace/name
	ops  []Op
	// OnOp, if set, is called after every successful write.
	OnOp func(Op)
	// Strip, if set, is a planted fault for the negative tests of the
	// checks: status writes lose their conditions of this type.
	Strip v1.PodConditionType
}

// New makes an empty store whose deletion timestamps read now.
func New(now func() time.Time) *Server {
	return &Server{now: now, pods: map[string]*v1.Pod{}}
}

func key(ns, name string) string { return ns + "/" + name }

// Ops are the successful writes so far, in order.
func (s *Server) Ops() []Op { return s.ops }

// Get returns a copy of the stored pod.
func (s *Server) Get(ns, name string) (*v1.Pod, error) {
	p, ok := s.pods[key(ns, name)]
	if !ok {
		return nil, apierrors.NewNotFound(podsResource, name)
	}
	return p.DeepCopy(), nil
}

// List returns copies of every stored pod of ns ("" for all), by key.
func (s *Server) List(ns string) []*v1.Pod {
	var out []*v1.Pod
	for _, k := range sortedKeys(s.pods) {
		if p := s.pods[k]; ns == "" || p.Namespace == ns {
			out = append(out, p.DeepCopy())
		}
	}
	return out
}

// ByUID returns a copy of the stored pod with uid, if any.
func (s *Server) ByUID(uid types.UID) (*v1.Pod, bool) {
	for _, k := range sortedKeys(s.pods) {
		if p := s.pods[k]; p.UID == uid {
			return p.DeepCopy(), true
		}
	}
	return nil, false
}

// Create stores a new pod; AlreadyExists if its name is taken.
func (s *Server) Create(actor string, pod *v1.Pod) (*v1.Pod, error) {
	k := key(pod.Namespace, pod.Name)
	if _, ok := s.pods[k]; ok {
		return nil, apierrors.NewAlreadyExists(podsResource, pod.Name)
	}
	p := pod.DeepCopy()
	p.DeletionTimestamp, p.DeletionGracePeriodSeconds = nil, nil
	s.bump(p)
	s.pods[k] = p
	s.record(actor, Create, p, "")
	return p.DeepCopy(), nil
}

// Update writes the spec and metadata (status false) or the status (status
// true) of pod; the other half, and the deletion fields, are kept.
func (s *Server) Update(actor string, pod *v1.Pod, status bool) (*v1.Pod, error) {
	verb := Update
	if status {
		verb = UpdateStatus
	}
	return s.write(actor, pod, status, verb)
}

func (s *Server) write(actor string, pod *v1.Pod, status bool, verb Verb) (*v1.Pod, error) {
	old, ok := s.pods[key(pod.Namespace, pod.Name)]
	if !ok {
		return nil, apierrors.NewNotFound(podsResource, pod.Name)
	}
	if pod.UID != "" && pod.UID != old.UID {
		return nil, conflict(pod.Name, "UID in object meta: %s, UID stored: %s", pod.UID, old.UID)
	}
	if pod.ResourceVersion != "" && pod.ResourceVersion != old.ResourceVersion {
		return nil, conflict(pod.Name, "the object has been modified: resourceVersion %s, stored %s", pod.ResourceVersion, old.ResourceVersion)
	}
	before := old.Status.Phase
	var p *v1.Pod
	if status {
		p = old.DeepCopy()
		p.Status = *pod.Status.DeepCopy()
		s.strip(&p.Status)
	} else {
		p = pod.DeepCopy()
		p.UID, p.Status = old.UID, *old.Status.DeepCopy()
		p.DeletionTimestamp, p.DeletionGracePeriodSeconds = old.DeletionTimestamp, old.DeletionGracePeriodSeconds
	}
	s.bump(p)
	s.pods[key(p.Namespace, p.Name)] = p
	s.record(actor, verb, p, before)
	return p.DeepCopy(), nil
}

// Delete is a delete with the options' grace and preconditions (package
// comment). It returns the object still stored after a graceful delete,
// nil once it was removed.
func (s *Server) Delete(actor, ns, name string, o metav1.DeleteOptions) (*v1.Pod, error) {
	k := key(ns, name)
	p, ok := s.pods[k]
	if !ok {
		return nil, apierrors.NewNotFound(podsResource, name)
	}
	if pre := o.Preconditions; pre != nil {
		if pre.UID != nil && *pre.UID != p.UID {
			return nil, conflict(name, "UID in precondition: %s, UID in object meta: %s", *pre.UID, p.UID)
		}
		if pre.ResourceVersion != nil && *pre.ResourceVersion != p.ResourceVersion {
			return nil, conflict(name, "ResourceVersion in precondition: %s, ResourceVersion in object meta: %s", *pre.ResourceVersion, p.ResourceVersion)
		}
	}
	// As the pod strategy does, the grace is always decided (options,
	// spec, default, or 0), so it is always "given".
	grace := s.grace(p, o.GracePeriodSeconds)
	if p.DeletionTimestamp != nil {
		old := p.DeletionGracePeriodSeconds
		if old != nil && grace < *old {
			// Only a shorter grace may be given: the timestamp moves back.
			ts := metav1.NewTime(p.DeletionTimestamp.Add(-time.Duration(*old) * time.Second).Add(time.Duration(grace) * time.Second))
			p.DeletionTimestamp, p.DeletionGracePeriodSeconds = &ts, &grace
		} else if old != nil {
			return p.DeepCopy(), nil // graceful deletion pending: nothing changes
		} else {
			grace = 0 // a deletion timestamp without a grace: removed at once
		}
	} else if grace > 0 {
		ts := metav1.NewTime(s.now().Add(time.Duration(grace) * time.Second))
		p.DeletionTimestamp, p.DeletionGracePeriodSeconds = &ts, &grace
	}
	if grace == 0 {
		delete(s.pods, k)
		s.record(actor, DeleteRemoved, p, p.Status.Phase)
		return nil, nil
	}
	s.bump(p)
	s.record(actor, DeleteGraceful, p, p.Status.Phase)
	return p.DeepCopy(), nil
}

// grace is the pod strategy's grace for a delete: the options' or the
// spec's, and 0 for a pod bound to no node or in a terminal phase.
func (s *Server) grace(p *v1.Pod, opt *int64) int64 {
	g := DefaultGrace
	if p.Spec.TerminationGracePeriodSeconds != nil {
		g = *p.Spec.TerminationGracePeriodSeconds
	}
	if opt != nil {
		g = *opt
	}
	if p.Spec.NodeName == "" || p.Status.Phase == v1.PodFailed || p.Status.Phase == v1.PodSucceeded {
		g = 0
	}
	return max(g, 0)
}

// strip applies the planted fault Strip to a written status.
func (s *Server) strip(st *v1.PodStatus) {
	if s.Strip == "" {
		return
	}
	st.Conditions = slices.DeleteFunc(st.Conditions, func(c v1.PodCondition) bool { return c.Type == s.Strip })
}

func (s *Server) bump(p *v1.Pod) {
	s.rv++
	p.ResourceVersion = strconv.FormatUint(s.rv, 10)
}

func (s *Server) record(actor string, v Verb, p *v1.Pod, before v1.PodPhase) {
	op := Op{Actor: actor, Verb: v, UID: p.UID, Name: p.Name, Phase: p.Status.Phase, From: before,
		PhaseChanged: p.Status.Phase != before, Ready: ReadyTrue(p.Status.Conditions),
		Disrupted: ConditionTrue(p.Status.Conditions, v1.DisruptionTarget)}
	if g := p.DeletionGracePeriodSeconds; g != nil {
		op.Grace = new(int64)
		*op.Grace = *g
	}
	s.ops = append(s.ops, op)
	if s.OnOp != nil {
		s.OnOp(op)
	}
}

// ReadyTrue: among cs, the Ready or the ContainersReady condition is True.
func ReadyTrue(cs []v1.PodCondition) bool {
	return ConditionTrue(cs, v1.PodReady) || ConditionTrue(cs, v1.ContainersReady)
}

// ConditionTrue: among cs, a condition of type t is True.
func ConditionTrue(cs []v1.PodCondition, t v1.PodConditionType) bool {
	for _, c := range cs {
		if c.Type == t && c.Status == v1.ConditionTrue {
			return true
		}
	}
	return false
}

func conflict(name, format string, args ...any) error {
	return apierrors.NewConflict(podsResource, name, fmt.Errorf("Precondition failed: "+format, args...))
}
