package shapes

import (
	"slices"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/workers"
)

// pod is a pod object of uid with a 30 s spec grace in phase; static
// unless from the API server.
func pod(uid string, phase v1.PodPhase, fromAPI bool) *v1.Pod {
	grace := int64(30)
	p := &v1.Pod{ObjectMeta: metav1.ObjectMeta{UID: types.UID(uid)},
		Spec: v1.PodSpec{TerminationGracePeriodSeconds: &grace}, Status: v1.PodStatus{Phase: phase}}
	if fromAPI {
		p.Annotations = map[string]string{workers.ConfigSourceAnnotationKey: workers.ApiserverSource}
	}
	return p
}

// completion is a kill's completion Event that is never fired.
type completion struct{ workers.Event }

func grace(g int64) *workers.KillPodOptions {
	return &workers.KillPodOptions{PodTerminationGracePeriodSecondsOverride: &g}
}

// TestNoteShapes: each UpdatePod draws one value of each dimension that
// applies to it, and nothing else.
func TestNoteShapes(t *testing.T) {
	var done workers.Event = completion{} // only its presence counts
	running := &workers.RunningPod{ID: "a", Name: "pod-a", Namespace: "default"}
	for _, tt := range []struct {
		name string
		o    workers.UpdatePodOptions
		want []string
	}{
		{"a static pending create", workers.UpdatePodOptions{UpdateType: workers.SyncPodCreate, Pod: pod("a", v1.PodPending, false)},
			[]string{"type=create", "target=pod", "type×target=create/pod", "kill=none", "grace=nil", "phase=pending", "static=yes", "uid=fresh"}},
		{"an API pod's update, running", workers.UpdatePodOptions{UpdateType: workers.SyncPodUpdate, Pod: pod("a", v1.PodRunning, true)},
			[]string{"type=update", "target=pod", "type×target=update/pod", "kill=none", "grace=nil", "phase=running", "static=no"}},
		{"a kill with a shorter grace, terminal", workers.UpdatePodOptions{UpdateType: workers.SyncPodKill,
			Pod: pod("a", v1.PodFailed, true), KillPodOptions: grace(10)},
			[]string{"type=kill", "target=pod", "type×target=kill/pod", "kill=grace", "grace=shorter", "phase=terminal", "static=no"}},
		{"a kill with grace 0 and a completion", workers.UpdatePodOptions{UpdateType: workers.SyncPodKill, Pod: pod("a", v1.PodRunning, true),
			KillPodOptions: &workers.KillPodOptions{PodTerminationGracePeriodSecondsOverride: new(int64), CompletedCh: done}},
			[]string{"type=kill", "target=pod", "type×target=kill/pod", "kill=grace", "kill=completion", "grace=0", "kill-on=kill",
				"phase=running", "static=no"}},
		{"an eviction with the spec grace, both targets", workers.UpdatePodOptions{UpdateType: workers.SyncPodKill,
			Pod: pod("a", v1.PodRunning, true), RunningPod: running, KillPodOptions: func() *workers.KillPodOptions {
				ko := grace(30)
				ko.Evict = true
				return ko
			}()},
			[]string{"type=kill", "target=both", "type×target=kill/both", "kill=grace", "kill=evict", "grace=equal", "phase=running", "static=no"}},
		{"a runtime pod's kill with a longer grace", workers.UpdatePodOptions{UpdateType: workers.SyncPodKill, RunningPod: running,
			KillPodOptions: grace(1)},
			[]string{"type=kill", "target=running-pod", "type×target=kill/running-pod", "kill=grace", "grace=longer"}},
		{"a runtime-only sync with a completion", workers.UpdatePodOptions{UpdateType: workers.SyncPodSync, RunningPod: running,
			KillPodOptions: &workers.KillPodOptions{CompletedCh: done}},
			[]string{"type=sync", "target=running-pod", "type×target=sync/running-pod", "kill=completion", "grace=nil", "kill-on=sync",
				"kill-on=update/running-pod"}},
		{"empty kill options", workers.UpdatePodOptions{UpdateType: workers.SyncPodKill, RunningPod: running,
			KillPodOptions: &workers.KillPodOptions{}},
			[]string{"type=kill", "target=running-pod", "type×target=kill/running-pod", "kill=none", "grace=nil"}},
	} {
		var s Set
		s.Note(tt.o, tt.o.Pod != nil && tt.o.Pod.Annotations[workers.ConfigSourceAnnotationKey] != workers.ApiserverSource)
		want := slices.Sorted(slices.Values(tt.want))
		if got := s.Sorted(); !slices.Equal(got, want) {
			t.Errorf("%s: got %v, want %v", tt.name, got, want)
		}
		for _, sh := range s.Sorted() {
			if !slices.ContainsFunc(Dimensions, func(dim []string) bool { return slices.Contains(dim, sh) }) {
				t.Errorf("%s: drew %s, which no dimension lists", tt.name, sh)
			}
		}
	}
}

// TestNoteReusedUID: a create for a UID created before in the run is
// reused, one for another UID fresh; a set also holds what Add records.
func TestNoteReusedUID(t *testing.T) {
	var s Set
	create := func(uid string) workers.UpdatePodOptions {
		return workers.UpdatePodOptions{UpdateType: workers.SyncPodCreate, Pod: pod(uid, v1.PodPending, true)}
	}
	s.Note(create("a"), false)
	if slices.Contains(s.Sorted(), "uid=reused") {
		t.Fatalf("the first create: got %v, want no reused UID", s.Sorted())
	}
	s.Note(create("b"), false)
	if slices.Contains(s.Sorted(), "uid=reused") {
		t.Fatalf("a create of another UID: got %v, want no reused UID", s.Sorted())
	}
	s.Note(create("a"), false)
	s.Add(Query)
	if got := s.Sorted(); !slices.Contains(got, "uid=reused") || !slices.Contains(got, "uid=fresh") || !slices.Contains(got, Query) {
		t.Errorf("a second create of a: got %v, want uid=fresh, uid=reused and %s", got, Query)
	}
}

// TestEveryShapeHasABit: a Set keeps one bit per shape of Dimensions, so
// the shapes are at most 64 and each is listed once (a repeated value
// would share its bit with nothing and shapeOf would miss a place).
func TestEveryShapeHasABit(t *testing.T) {
	if len(all) > 64 {
		t.Fatalf("%d shapes, a Set holds 64", len(all))
	}
	if len(shapeOf) != len(all) {
		t.Fatalf("%d shapes listed, %d distinct", len(all), len(shapeOf))
	}
	var s Set
	for _, dim := range Dimensions {
		s.Add(dim...)
	}
	if got, want := s.Sorted(), slices.Sorted(slices.Values(all)); !slices.Equal(got, want) {
		t.Errorf("every shape added: got %v, want %v", got, want)
	}
}
