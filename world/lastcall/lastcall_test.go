package lastcall

import (
	"reflect"
	"testing"
	"unsafe"

	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/model/ops"
	"github.com/podsim/podsim/workers"
)

// boxed is the data word of an interface value: the same box or not.
func boxed(v any) unsafe.Pointer { return (*[2]unsafe.Pointer)(unsafe.Pointer(&v))[1] }

// TestMemoSameOrNew: a call with the same desired UIDs, or the same known
// pods, gets the last call's value (the same box, its slice unchanged); a
// different one gets a new value of its own, and the last one handed out
// is never changed.
func TestMemoSameOrNew(t *testing.T) {
	var m Memo
	uids := func(s ...string) func(int) string { return func(i int) string { return s[i] } }
	first := m.Desired(2, uids("a", "b"))
	if got := m.Desired(2, uids("a", "b")); boxed(got) != boxed(first) {
		t.Error("same desired UIDs: a new input")
	}
	if got := m.Desired(2, uids("a", "c")); boxed(got) == boxed(first) || !reflect.DeepEqual(got, ops.SyncKnownPods{Desired: []string{"a", "c"}}) {
		t.Errorf("other desired UIDs: %+v, the last input or wrong", got)
	}
	if !reflect.DeepEqual(first, ops.SyncKnownPods{Desired: []string{"a", "b"}}) {
		t.Errorf("the first input changed: %+v", first)
	}
	if got := m.Desired(0, uids()); !reflect.DeepEqual(got, ops.SyncKnownPods{Desired: []string{}}) {
		t.Errorf("no desired UIDs: %+v", got)
	}
	known := workers.KnownPods{{UID: types.UID("a"), PodWorkerSync: workers.PodWorkerSync{State: workers.SyncPodWork, HasConfig: true}}}
	k1 := m.Known(known)
	if got := m.Known(known); boxed(got) != boxed(k1) {
		t.Error("same known pods: a new result")
	}
	known[0].Orphan = true
	k2 := m.Known(known)
	if boxed(k2) == boxed(k1) || !k2.(ops.KnownPods)[0].Orphan || k1.(ops.KnownPods)[0].Orphan {
		t.Errorf("other known pods: %+v after %+v", k2, k1)
	}
	if got := m.Known(nil); got == nil || len(got.(ops.KnownPods)) != 0 {
		t.Errorf("no known pods: %#v, want an empty result", got)
	}
}
