package workers

import (
	"reflect"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/workers/internal/mutant"
)

// TestRenewIsNew: pod workers renewed after a run (Renew: the memory of
// the last ones, their maps emptied and kept) are what New makes, field for
// field, and so is a renewed work queue. The run before fills every map,
// the records, the flags and the mutants. It fails when Renew keeps an
// entry of any of the three maps or any other field of the run before, and
// when a record is handed out twice in a run or keeps a field of the run
// before.
func TestRenewIsNew(t *testing.T) {
	syncer, cache := fakeSyncerFor(), newFakeCache()
	cfg := Config{Runtime: inertRuntime{}, Syncer: syncer, Cache: cache}
	pw := New(cfg)
	pw.SetMutants(mutant.Set{}.With(mutant.B3))
	pw.SyncKnownPods(nil)
	grace := int64(5)
	for i := range 4 {
		pod := &v1.Pod{ObjectMeta: metav1.ObjectMeta{UID: types.UID(rune('a' + i)), Name: "web", Namespace: "default",
			Annotations: map[string]string{ConfigSourceAnnotationKey: "file"}}}
		pw.UpdatePod(UpdatePodOptions{UpdateType: SyncPodCreate, Pod: pod})
		pw.UpdatePod(UpdatePodOptions{UpdateType: SyncPodKill, Pod: pod,
			KillPodOptions: &KillPodOptions{PodTerminationGracePeriodSecondsOverride: &grace}})
	}
	pw.startedStaticPodsByFullname["web_default"] = "a"
	if len(pw.workerGenerations) == 0 || len(pw.waitingToStartStaticPodsByFullname) == 0 || len(pw.records) == 0 {
		t.Fatalf("the run before left maps empty: generations %v, waiting %v, %d records",
			pw.workerGenerations, pw.waitingToStartStaticPodsByFullname, len(pw.records))
	}
	renewed := Renew(pw, cfg)
	if renewed != pw {
		t.Fatal("Renew did not build in the memory it was given")
	}
	if renewed.used != 0 || len(renewed.made) != 4 {
		t.Fatalf("renewed pod workers hand out %d of %d records made before: want 0 of 4", renewed.used, len(renewed.made))
	}
	made := renewed.made
	renewed.made = nil // the one field New leaves empty
	if want := New(cfg); !reflect.DeepEqual(renewed, want) {
		t.Fatalf("renewed pod workers %+v, New's %+v", *renewed, *want)
	}
	renewed.made = made

	// The next run's records, in the memory of the last run's, are New's.
	fresh := New(cfg)
	for _, w := range []*PodWorkers{renewed, fresh} {
		for i := range 3 {
			pod := &v1.Pod{ObjectMeta: metav1.ObjectMeta{UID: types.UID(rune('x' + i)), Name: "db", Namespace: "default"}}
			w.UpdatePod(UpdatePodOptions{UpdateType: SyncPodCreate, Pod: pod})
		}
	}
	if len(renewed.records) != len(fresh.records) {
		t.Fatalf("a renewed run has %d records, a new run %d", len(renewed.records), len(fresh.records))
	}
	for i := range renewed.records {
		a, b := *renewed.records[i].status, *fresh.records[i].status
		if a.run == nil || b.run == nil {
			t.Fatalf("record %s has no worker body made with its memory", a.uid)
		}
		a.run, b.run = nil, nil // made for each memory: funcs are never DeepEqual
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("a renewed run's record %+v, a new run's %+v", a, b)
		}
	}

	q := NewQueue(inertRuntime{})
	q.Enqueue("a", time.Second)
	q.Enqueue("b", 0)
	q.GetWork(time.Unix(0, 0))
	if rq := RenewQueue(q, inertRuntime{}); rq != q || !reflect.DeepEqual(rq, NewQueue(inertRuntime{})) {
		t.Fatalf("renewed queue %+v, NewQueue's %+v", *rq, *NewQueue(inertRuntime{}))
	}
}
