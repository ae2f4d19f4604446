package workers

import (
	"sync"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// inertRuntime starts no goroutine and never blocks: the benchmark measures
// UpdatePod's decision procedure and the queries alone, where the mutation
// points sit.
type inertRuntime struct{}

func (inertRuntime) Go(string, func())           {}
func (inertRuntime) NewMutex(string) sync.Locker { return &sync.Mutex{} }
func (inertRuntime) NewSignal(string) Signal     { return inertSignal{} }
func (inertRuntime) NewEvent(string) Event       { return &inertEvent{} }
func (inertRuntime) Now() time.Time              { return time.Unix(0, 0) }
func (inertRuntime) Intn(int) int                { return 0 }

type inertSignal struct{}

func (inertSignal) Notify()       {}
func (inertSignal) Wait() bool    { return false }
func (inertSignal) TryWait() bool { return false }
func (inertSignal) Close()        {}

type inertEvent struct{ fired bool }

func (e *inertEvent) Fire()                      { e.fired = true }
func (e *inertEvent) Fired() bool                { return e.fired }
func (e *inertEvent) Wait()                      {}
func (e *inertEvent) WaitFor(time.Duration) bool { return e.fired }

// BenchmarkUpdatePod is the cost of UpdatePod (create, updates, a kill with
// a grace override, a static pod) and a query round, with every mutant off:
// run it on this commit and on the one before the mutants were added to
// show that the off mutation points cost nothing measurable
// (docs/performance.md, "Mutants cost nothing when off").
func BenchmarkUpdatePod(b *testing.B) {
	var pods []*v1.Pod
	for i := range 8 {
		pod := &v1.Pod{ObjectMeta: metav1.ObjectMeta{UID: types.UID(rune('a' + i)), Name: "web", Namespace: "default"}}
		if i%2 == 0 {
			pod.Annotations = map[string]string{ConfigSourceAnnotationKey: "file"}
		}
		pods = append(pods, pod)
	}
	grace := int64(5)
	b.ReportAllocs()
	for b.Loop() {
		pw := New(Config{Runtime: inertRuntime{}, Syncer: fakeSyncerFor(), Cache: newFakeCache()})
		for _, pod := range pods {
			pw.UpdatePod(UpdatePodOptions{UpdateType: SyncPodCreate, Pod: pod})
			pw.UpdatePod(UpdatePodOptions{UpdateType: SyncPodUpdate, Pod: pod})
			pw.UpdatePod(UpdatePodOptions{UpdateType: SyncPodKill, Pod: pod,
				KillPodOptions: &KillPodOptions{PodTerminationGracePeriodSecondsOverride: &grace}})
			pw.UpdatePod(UpdatePodOptions{UpdateType: SyncPodCreate, Pod: pod})
			_ = pw.CouldHaveRunningContainers(pod.UID) && pw.IsPodKnownTerminated(pod.UID)
		}
		pw.SyncKnownPods(pods[:4])
	}
}

func fakeSyncerFor() Syncer { return newFakeSyncer(inertRuntime{}) }
