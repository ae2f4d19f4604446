package apiserver

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	"k8s.io/apimachinery/pkg/watch"
	clientset "k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
)

// Client is a clientset whose pod calls reach the store as actor (Op.Actor).
// Only the reactors route: they call the store and return at once. Calls
// on other resources, and pod verbs the model does not have (watch,
// deletecollection, apply), are refused with an error, so a component
// that grows a new dependency on the API fails loudly.
func (s *Server) Client(actor string) clientset.Interface {
	c := fake.NewClientset()
	c.PrependReactor("*", "*", func(a clienttesting.Action) (bool, runtime.Object, error) {
		return true, nil, fmt.Errorf("apiserver model: %s %s/%s is not modelled", a.GetVerb(), a.GetResource().Resource, a.GetSubresource())
	})
	c.PrependWatchReactor("*", func(a clienttesting.Action) (bool, watch.Interface, error) {
		return true, nil, fmt.Errorf("apiserver model: watch %s is not modelled", a.GetResource().Resource)
	})
	c.PrependReactor("*", "pods", func(a clienttesting.Action) (bool, runtime.Object, error) {
		obj, err := s.route(actor, a)
		if err != nil {
			return true, nil, err
		}
		return true, obj, nil
	})
	return c
}

// route performs one pod action on the store.
func (s *Server) route(actor string, a clienttesting.Action) (runtime.Object, error) {
	status := a.GetSubresource() == "status"
	if sub := a.GetSubresource(); sub != "" && !status {
		return nil, fmt.Errorf("apiserver model: subresource %q is not modelled", sub)
	}
	ns := a.GetNamespace()
	switch a := a.(type) {
	case clienttesting.GetActionImpl:
		return s.Get(ns, a.Name)
	case clienttesting.ListActionImpl:
		l := &v1.PodList{}
		for _, p := range s.List(ns) {
			l.Items = append(l.Items, *p)
		}
		return l, nil
	case clienttesting.CreateActionImpl:
		if status {
			return nil, apierrors.NewMethodNotSupported(podsResource, "create status")
		}
		return s.Create(actor, a.Object.(*v1.Pod))
	case clienttesting.UpdateActionImpl:
		return s.Update(actor, a.Object.(*v1.Pod), status)
	case clienttesting.PatchActionImpl:
		return s.Patch(actor, ns, a.Name, a.PatchType, a.Patch, status)
	case clienttesting.DeleteActionImpl:
		if status {
			return nil, apierrors.NewMethodNotSupported(podsResource, "delete status")
		}
		p, err := s.Delete(actor, ns, a.Name, a.DeleteOptions)
		if p == nil && err == nil {
			return &v1.Pod{}, nil
		}
		return p, err
	}
	return nil, fmt.Errorf("apiserver model: pod verb %s is not modelled", a.GetVerb())
}

// Patch applies a strategic-merge or merge patch. A status patch changes
// only the status; a patch whose metadata.uid differs from the stored
// object's is a Conflict (the UID precondition PatchPodStatus relies on).
func (s *Server) Patch(actor, ns, name string, pt types.PatchType, patch []byte, status bool) (*v1.Pod, error) {
	old, err := s.Get(ns, name)
	if err != nil {
		return nil, err
	}
	cur, err := json.Marshal(old)
	if err != nil {
		return nil, err
	}
	var out []byte
	switch pt {
	case types.StrategicMergePatchType:
		out, err = strategicpatch.StrategicMergePatch(cur, patch, v1.Pod{})
	default:
		return nil, apierrors.NewBadRequest(fmt.Sprintf("apiserver model: patch type %s is not modelled", pt))
	}
	if err != nil {
		return nil, apierrors.NewBadRequest(err.Error())
	}
	patched := &v1.Pod{}
	if err := json.Unmarshal(out, patched); err != nil {
		return nil, apierrors.NewBadRequest(err.Error())
	}
	if patched.UID != old.UID {
		return nil, conflict(name, "UID in precondition: %s, UID in object meta: %s", patched.UID, old.UID)
	}
	if patched.ResourceVersion != old.ResourceVersion {
		return nil, conflict(name, "the object has been modified: resourceVersion %s, stored %s", patched.ResourceVersion, old.ResourceVersion)
	}
	verb := Update
	if status {
		verb = PatchStatus
	}
	return s.write(actor, patched, status, verb)
}

func sortedKeys(m map[string]*v1.Pod) []string { return slices.Sorted(maps.Keys(m)) }
