package history

import (
	"reflect"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/podsim/podsim/plan"
)

// TestPodObjectsBuildPodObject: PodObjects.Build makes the object
// PodObject makes, for static and API pods, every version, deleted or not;
// objects of one version share their labels and those of one source their
// annotations, and no others do (a version's label is its own); a second
// builder (another run) shares none of the first's maps.
func TestPodObjectsBuildPodObject(t *testing.T) {
	var b PodObjects
	now, grace := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), int64(5)
	var built []*v1.Pod
	for _, static := range []bool{false, true} {
		for _, version := range []int{0, 1, 2, 3, 31, 32, 33, 37} {
			for _, deletion := range []*int64{nil, &grace} {
				a := plan.Action{UID: "a", Static: static, SpecGrace: 30}
				got, want := b.Build(a, version, v1.PodRunning, deletion, now), PodObject(a, version, v1.PodRunning, deletion, now)
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("static %v, version %d, deletion %v: built %+v, want %+v", static, version, deletion, got, want)
				}
				built = append(built, got)
			}
		}
	}
	for i, p := range built { // each pod's grace and deletion time are its own
		*p.Spec.TerminationGracePeriodSeconds = int64(100 + i)
		if p.DeletionTimestamp != nil {
			p.DeletionTimestamp.Time = now.Add(time.Duration(i) * time.Second)
		}
	}
	for i, p := range built {
		if g := *p.Spec.TerminationGracePeriodSeconds; g != int64(100+i) {
			t.Errorf("pod %d: spec grace %d, want %d: another pod's write reached it", i, g, 100+i)
		}
		if d := p.DeletionTimestamp; d != nil && !d.Time.Equal(now.Add(time.Duration(i)*time.Second)) {
			t.Errorf("pod %d: deletion time %v: another pod's write reached it", i, d.Time)
		}
	}
	for _, p := range built {
		for _, q := range built {
			sameLabels := reflect.ValueOf(p.Labels).UnsafePointer() == reflect.ValueOf(q.Labels).UnsafePointer()
			if sameLabels != (p.Labels["version"] == q.Labels["version"]) {
				t.Errorf("versions %s and %s: labels shared %v", p.Labels["version"], q.Labels["version"], sameLabels)
			}
			sameAnn := reflect.ValueOf(p.Annotations).UnsafePointer() == reflect.ValueOf(q.Annotations).UnsafePointer()
			if src := ConfigSourceAnnotationKey; sameAnn != (p.Annotations[src] == q.Annotations[src]) {
				t.Errorf("sources %s and %s: annotations shared %v", p.Annotations[src], q.Annotations[src], sameAnn)
			}
		}
	}
	var other PodObjects // another run's builder
	for _, static := range []bool{false, true} {
		for _, version := range []int{0, 3, 33} {
			p, q := b.Build(plan.Action{UID: "a", Static: static}, version, v1.PodRunning, nil, now), other.Build(plan.Action{UID: "a", Static: static}, version, v1.PodRunning, nil, now)
			if reflect.ValueOf(p.Labels).UnsafePointer() == reflect.ValueOf(q.Labels).UnsafePointer() ||
				reflect.ValueOf(p.Annotations).UnsafePointer() == reflect.ValueOf(q.Annotations).UnsafePointer() {
				t.Errorf("static %v, version %d: two builders share a map (a write in one run would reach the other)", static, version)
			}
		}
	}
}

// TestEveryKindHasAName: every kind below NumEventKinds has its own name,
// so a kind added without one (or past the count) fails here.
func TestEveryKindHasAName(t *testing.T) {
	seen := map[string]bool{}
	for k := EventKind(0); k < NumEventKinds; k++ {
		if n := k.String(); n == "" || seen[n] {
			t.Errorf("kind %d has name %q", k, n)
		} else {
			seen[n] = true
		}
	}
}

// TestPodObjectFields: PodObject sets exactly the fields its doc names
// (podObject sets them one by one in a zeroed pod: a field forgotten there,
// or one set that the literal leaves out, fails here).
func TestPodObjectFields(t *testing.T) {
	now, grace, spec := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), int64(5), int64(30)
	for _, deletion := range []*int64{nil, &grace} {
		a := plan.Action{UID: "a", Static: true, SpecGrace: spec}
		want := &v1.Pod{
			ObjectMeta: metav1.ObjectMeta{UID: "a", Name: "pod-a", Namespace: "default",
				Labels: map[string]string{"version": "3"}, Annotations: map[string]string{ConfigSourceAnnotationKey: "file"}},
			Spec:   v1.PodSpec{TerminationGracePeriodSeconds: &spec},
			Status: v1.PodStatus{Phase: v1.PodFailed},
		}
		if deletion != nil {
			want.DeletionTimestamp, want.DeletionGracePeriodSeconds = &metav1.Time{Time: now}, deletion
		}
		if got := PodObject(a, 3, v1.PodFailed, deletion, now); !reflect.DeepEqual(got, want) {
			t.Errorf("deletion %v: built %+v, want %+v", deletion, got, want)
		}
	}
}

// TestPodObjectsReuse: after Reuse a builder builds in the objects it
// built before (the same memory), each what PodObject makes (a deleted
// pod's object built again for a pod not deleted has no deletion left
// over), with the maps of the run before where no write reached them and
// maps of its own where one did (a write in the run before does not reach
// the next); without Reuse every object is new.
func TestPodObjectsReuse(t *testing.T) {
	now, grace := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), int64(5)
	var b PodObjects
	b.Reuse()
	var before []*v1.Pod
	for version := range 3 {
		before = append(before, b.Build(plan.Action{UID: "a", Static: version == 1, SpecGrace: 7}, version, v1.PodFailed, &grace, now))
	}
	b.Build(plan.Action{UID: "a"}, 70, v1.PodFailed, nil, now).Labels["version"] = "written"
	before[0].Labels["version"], before[1].Annotations[ConfigSourceAnnotationKey] = "written", "written"
	before[2].Labels["other"] = "added"
	same := func(m, n map[string]string) bool {
		return reflect.ValueOf(m).UnsafePointer() == reflect.ValueOf(n).UnsafePointer()
	}
	b.Reuse()
	if l := b.Build(plan.Action{UID: "c"}, 1, v1.PodRunning, nil, now).Labels; !same(l, before[1].Labels) {
		t.Error("after Reuse: an unwritten label map made anew")
	}
	if a := b.Build(plan.Action{UID: "c"}, 0, v1.PodRunning, nil, now).Annotations; !same(a, before[0].Annotations) {
		t.Error("after Reuse: an unwritten annotation map made anew")
	}
	b.Reuse()
	for _, version := range []int{0, 1, 2, 3, 70} {
		a := plan.Action{UID: "b", Static: version == 0, SpecGrace: 30}
		got := b.Build(a, version, v1.PodRunning, nil, now)
		if want := PodObject(a, version, v1.PodRunning, nil, now); !reflect.DeepEqual(got, want) {
			t.Errorf("version %d after Reuse: built %+v, want %+v", version, got, want)
		}
		if version < len(before) && got != before[version] {
			t.Errorf("version %d after Reuse: a new object, not the one built before", version)
		}
	}
	var fresh PodObjects
	p := fresh.Build(plan.Action{UID: "a"}, 0, v1.PodRunning, nil, now)
	if q := fresh.Build(plan.Action{UID: "a"}, 0, v1.PodRunning, nil, now); p == q || len(fresh.boxes) != 0 {
		t.Errorf("without Reuse: objects shared or kept (%d kept)", len(fresh.boxes))
	}
}

// TestPodObjectsModel: Model of an object the builder built among its
// last few is ModelPod of it, for static and API pods, every phase, deleted
// or not, any spec grace, fresh and after Reuse; an object it did not
// build, or built too long ago, is read by ModelPod.
func TestPodObjectsModel(t *testing.T) {
	now, grace := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), int64(5)
	var b PodObjects
	for _, reuse := range []bool{false, true} {
		if reuse {
			b.Reuse()
		}
		for _, static := range []bool{false, true} {
			for _, phase := range []v1.PodPhase{v1.PodPending, v1.PodRunning, v1.PodSucceeded, v1.PodFailed, ""} {
				for _, deletion := range []*int64{nil, &grace} {
					for _, spec := range []int64{0, 7, 30} {
						a := plan.Action{UID: "a", Static: static, SpecGrace: spec}
						pod := b.Build(a, 3, phase, deletion, now)
						if got, want := b.Model(pod), ModelPod(pod); got != want {
							t.Errorf("reuse %v, static %v, %q, deletion %v, spec %d: Model %+v, ModelPod %+v", reuse, static, phase, deletion, spec, got, want)
						}
					}
				}
			}
		}
	}
	old := b.Build(plan.Action{UID: "o", SpecGrace: 30}, 1, v1.PodRunning, nil, now)
	for range len(b.recent) {
		b.Build(plan.Action{UID: "x", SpecGrace: 30}, 2, v1.PodFailed, nil, now)
	}
	other := PodObject(plan.Action{UID: "y", Static: true, SpecGrace: 30}, 4, v1.PodPending, &grace, now)
	for _, pod := range []*v1.Pod{old, other} {
		if got, want := b.Model(pod), ModelPod(pod); got != want {
			t.Errorf("%s: Model %+v, ModelPod %+v", pod.UID, got, want)
		}
	}
}
