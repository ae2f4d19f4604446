package realvk

import (
	"fmt"
	"strconv"
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/podsim/podsim/history"
)

// The API server model. client-go's fake clientset stores objects but is
// not an API server: its UpdateStatus replaces the whole object, its
// Delete is immediate, and it ignores UID preconditions and resource
// versions. APIServer puts the semantics the controller relies on in front
// of it (the fake's tracker stays the store):
//
//   - resource versions: every write stamps the next version; an update
//     whose object carries a version other than the stored one is a
//     Conflict (an empty version is an unconditional update, as pods allow);
//   - the status subresource: UpdateStatus takes only .status from the
//     object sent (metadata, including the deletion timestamp, and spec
//     stay); a terminal phase cannot be left (Invalid); a UID other than
//     the stored one is a Conflict;
//   - graceful deletion: Delete of a pod on a node with a grace > 0 sets
//     deletionTimestamp = now + grace and deletionGracePeriodSeconds (a
//     later delete may only shorten it); grace 0, an unscheduled pod or
//     a terminal one is removed at once; a UID precondition that does not
//     match is a Conflict;
//   - a watch log: every change is an event the informers' watches deliver
//     one at a time when the driver says so (informer.go).
type APIServer struct {
	w       *World
	fake    *fake.Clientset
	rv      int64
	events  []watch.Event
	changes []string // what each write did, for the trace
}

var podsGVR = schema.GroupVersionResource{Version: "v1", Resource: "pods"}

// NodeName is the virtual node the controller serves.
const NodeName = "vk"

func newAPIServer(w *World) *APIServer { return &APIServer{w: w, fake: fake.NewClientset()} }

func (a *APIServer) tracker() k8stesting.ObjectTracker { return a.fake.Tracker() }

// get is the stored pod, or nil.
func (a *APIServer) get(ns, name string) *v1.Pod {
	obj, err := a.tracker().Get(podsGVR, ns, name)
	if err != nil {
		return nil
	}
	return obj.(*v1.Pod).DeepCopy()
}

// List is every stored pod, sorted by namespace and name (the tracker
// sorts), and the version the list is at.
func (a *APIServer) List() ([]v1.Pod, string) {
	obj, err := a.tracker().List(podsGVR, v1.SchemeGroupVersion.WithKind("Pod"), "")
	if err != nil {
		panic(err)
	}
	return obj.(*v1.PodList).Items, strconv.FormatInt(a.rv, 10)
}

func (a *APIServer) stamp(p *v1.Pod) {
	a.rv++
	p.ResourceVersion = strconv.FormatInt(a.rv, 10)
}

func (a *APIServer) record(t watch.EventType, p *v1.Pod, what string) {
	a.events = append(a.events, watch.Event{Type: t, Object: p.DeepCopy()})
	a.changes = append(a.changes, fmt.Sprintf("api %s %s/%s uid=%s rv=%s: %s", t, p.Namespace, p.Name, p.UID, p.ResourceVersion, what))
}

// Create stores a new pod bound to the node.
func (a *APIServer) Create(p *v1.Pod) error {
	if a.get(p.Namespace, p.Name) != nil {
		return apierrors.NewAlreadyExists(podsGVR.GroupResource(), p.Name)
	}
	p = p.DeepCopy()
	p.CreationTimestamp = metav1.NewTime(time.Now())
	a.stamp(p)
	if err := a.tracker().Create(podsGVR, p, p.Namespace); err != nil {
		return err
	}
	a.record(watch.Added, p, "created")
	a.w.emit(history.VKCreated{UID: p.UID, Name: p.Name})
	return nil
}

func terminal(ph v1.PodPhase) bool { return ph == v1.PodSucceeded || ph == v1.PodFailed }

// UpdateStatus is the status subresource.
func (a *APIServer) UpdateStatus(p *v1.Pod) (*v1.Pod, error) {
	cur := a.get(p.Namespace, p.Name)
	switch {
	case cur == nil:
		return nil, apierrors.NewNotFound(podsGVR.GroupResource(), p.Name)
	case p.UID != "" && p.UID != cur.UID:
		return nil, apierrors.NewConflict(podsGVR.GroupResource(), p.Name, fmt.Errorf("UID %s is not the stored %s", p.UID, cur.UID))
	case p.ResourceVersion != "" && p.ResourceVersion != cur.ResourceVersion:
		return nil, apierrors.NewConflict(podsGVR.GroupResource(), p.Name, fmt.Errorf("version %s is not the stored %s", p.ResourceVersion, cur.ResourceVersion))
	case terminal(cur.Status.Phase) && p.Status.Phase != cur.Status.Phase:
		return nil, apierrors.NewInvalid(v1.SchemeGroupVersion.WithKind("Pod").GroupKind(), p.Name, nil)
	}
	cur.Status = *p.Status.DeepCopy()
	a.stamp(cur)
	if err := a.tracker().Update(podsGVR, cur, cur.Namespace); err != nil {
		return nil, err
	}
	a.record(watch.Modified, cur, "status "+string(cur.Status.Phase))
	a.w.emit(history.VKStatusWritten{UID: cur.UID, Phase: cur.Status.Phase, Version: history.VKStatusVersion(cur.Status.Message)})
	return cur.DeepCopy(), nil
}

// Edit is another writer's change of uid's status in the API (its
// message), not the controller's: the provider's version is no longer
// what the API holds.
func (a *APIServer) Edit(uid types.UID) bool {
	items, _ := a.List()
	for _, p := range items {
		if p.UID != uid {
			continue
		}
		cur := p.DeepCopy()
		cur.Status.Message = "edited by another writer"
		a.stamp(cur)
		if err := a.tracker().Update(podsGVR, cur, cur.Namespace); err != nil {
			panic(err)
		}
		a.record(watch.Modified, cur, "status edited")
		a.w.emit(history.VKEdited{UID: uid})
		return true
	}
	return false
}

// Delete is a pod delete with options.
func (a *APIServer) Delete(by, ns, name string, o metav1.DeleteOptions) error {
	cur := a.get(ns, name)
	if cur == nil {
		return apierrors.NewNotFound(podsGVR.GroupResource(), name)
	}
	if pre := o.Preconditions; pre != nil && pre.UID != nil && *pre.UID != cur.UID {
		return apierrors.NewConflict(podsGVR.GroupResource(), name, fmt.Errorf("precondition UID %s, stored %s", *pre.UID, cur.UID))
	}
	grace := int64(v1.DefaultTerminationGracePeriodSeconds)
	if s := cur.Spec.TerminationGracePeriodSeconds; s != nil {
		grace = *s
	}
	if o.GracePeriodSeconds != nil {
		grace = *o.GracePeriodSeconds
	}
	if cur.Spec.NodeName == "" || terminal(cur.Status.Phase) {
		grace = 0
	}
	deleting := cur.DeletionTimestamp != nil
	if !deleting && (grace > 0 || by != "controller") {
		a.w.emit(history.VKDeleteRequested{UID: cur.UID, Grace: grace, By: by})
	}
	if grace <= 0 {
		return a.remove(by, cur, o)
	}
	if g := cur.DeletionGracePeriodSeconds; g != nil && *g <= grace {
		return nil // already deleting with a grace no longer than asked
	}
	at := metav1.NewTime(time.Now().Add(time.Duration(grace) * time.Second))
	cur.DeletionTimestamp, cur.DeletionGracePeriodSeconds = &at, &grace
	a.stamp(cur)
	if err := a.tracker().Update(podsGVR, cur, ns); err != nil {
		return err
	}
	a.record(watch.Modified, cur, fmt.Sprintf("deleting grace=%d", grace))
	return nil
}

func (a *APIServer) remove(by string, cur *v1.Pod, o metav1.DeleteOptions) error {
	if err := a.tracker().Delete(podsGVR, cur.Namespace, cur.Name); err != nil {
		return err
	}
	a.stamp(cur)
	a.record(watch.Deleted, cur, "removed")
	a.w.ev.RemovedGen[cur.UID], a.w.ev.RemovedAt[cur.UID] = a.w.gen, len(a.events)-1
	var pre types.UID
	if o.Preconditions != nil && o.Preconditions.UID != nil {
		pre = *o.Preconditions.UID
	}
	a.w.emit(history.VKRemoved{UID: cur.UID, By: by, Precondition: pre})
	return nil
}

// UIDOf is the stored pod's UID ("" if none).
func (a *APIServer) UIDOf(ns, name string) types.UID {
	if p := a.get(ns, name); p != nil {
		return p.UID
	}
	return ""
}
