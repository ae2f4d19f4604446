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

// TestMemoKeepsTheLastFew: a call made again after others gets its kept
// value (the same box) while it is one of the last ways inputs or results;
// one older than that gets a new one; and every value handed out is the
// call's own, whatever came between.
func TestMemoKeepsTheLastFew(t *testing.T) {
	var m Memo
	names := []string{"a", "b", "c", "ab", "ba", "abc", "x", "y", "z"}
	desired := func(k int) (int, func(int) string) { // the k-th input: names[k] and names[k+1]
		return 2, func(i int) string { return names[(k+i)%len(names)] }
	}
	known := func(k int) workers.KnownPods {
		return workers.KnownPods{{UID: types.UID(names[k]), PodWorkerSync: workers.PodWorkerSync{State: workers.SyncPodWork, HasConfig: k%2 == 0}}}
	}
	ins, outs := map[int]unsafe.Pointer{}, map[int]unsafe.Pointer{}
	// The latest first: 3 2 1 0, then 0 1 2 3, then 7 6 5 4 0 1 2 3 (ways
	// of them), then 5 6 7 0 4 1 2 3; 8 pushes out 3, and 3 pushes out 2.
	for round, order := range [][]int{{0, 1, 2, 3}, {3, 2, 1, 0}, {4, 5, 6, 7}, {0, 7, 6, 5}, {8}, {3, 4}} {
		for _, k := range order {
			in := m.Desired(desired(k))
			n, uid := desired(k)
			if want := []string{uid(0), uid(n - 1)}; !reflect.DeepEqual(in, ops.SyncKnownPods{Desired: want}) {
				t.Fatalf("round %d, input %d: %+v, want %v", round, k, in, want)
			}
			out := m.Known(known(k))
			if want := appendKnownPods(nil, known(k)); !reflect.DeepEqual(out, want) {
				t.Fatalf("round %d, result %d: %+v, want %+v", round, k, out, want)
			}
			kept := round != 5 || k != 3
			if p, ok := ins[k]; ok && (p == boxed(in)) != kept {
				t.Errorf("round %d, input %d: the kept box %v, want %v", round, k, p == boxed(in), kept)
			}
			if p, ok := outs[k]; ok && (p == boxed(out)) != kept {
				t.Errorf("round %d, result %d: the kept box %v, want %v", round, k, p == boxed(out), kept)
			}
			ins[k], outs[k] = boxed(in), boxed(out)
		}
	}
}
