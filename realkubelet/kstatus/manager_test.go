package kstatus

import (
	"context"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/kubelet/status"

	"github.com/podsim/podsim/realkubelet/apiserver"
	"github.com/podsim/podsim/realkubelet/drift"
)

// TestSyncBatchSignature guards syncbatch.go's go:linkname: upstream's
// syncBatch must be a method of *manager with exactly our parameter and
// result types (a drifted linkname compiles and corrupts memory).
func TestSyncBatchSignature(t *testing.T) {
	file := drift.UpstreamFile(t, "pkg/kubelet/status/status_manager.go")
	up := methodSig(t, file, nil, "syncBatch")
	if want := "(*manager) func(context.Context, bool) int"; up != want {
		t.Fatalf("%s: syncBatch drifted: %q, syncbatch.go declares %q", file, up, want)
	}
}

// TestSyncBatchGuardCatchesDrift: the guard's negative test.
func TestSyncBatchGuardCatchesDrift(t *testing.T) {
	for _, src := range []string{
		"package p\nfunc (m *manager) syncBatch(ctx context.Context, all bool, n int) int { return 0 }",
		"package p\nfunc (m manager) syncBatch(ctx context.Context, all bool) int { return 0 }",
		"package p\nfunc (m *manager) syncBatch(ctx context.Context, all bool) {}",
	} {
		if got := methodSig(t, "drifted.go", src, "syncBatch"); got == "(*manager) func(context.Context, bool) int" {
			t.Errorf("a drifted syncBatch renders like ours: %s", src)
		}
	}
	if err := checkManager(notManager{}); err == nil {
		t.Error("checkManager accepted a status.Manager that is not upstream's *manager")
	}
	if err := checkManager(status.NewManager(nil, nil, nil, nil)); err != nil {
		t.Errorf("checkManager refused upstream's manager: %v", err)
	}
}

type notManager struct{ status.Manager }

// methodSig is the canonical form of the method name in path (or src).
func methodSig(t *testing.T, path string, src any, name string) string {
	t.Helper()
	return drift.Parse(t, path, src).Method(name)
}

type world struct {
	api   *apiserver.Server
	m     *Manager
	could map[types.UID]bool
}

func newWorld() *world {
	w := &world{api: apiserver.New(time.Now), could: map[types.UID]bool{}}
	w.m = New(w.api, func(uid types.UID) bool { return w.could[uid] }, klog.Background())
	return w
}

func (w *world) create(t *testing.T, uid, name string) *v1.Pod {
	t.Helper()
	g := int64(30)
	p, err := w.api.Create("client", &v1.Pod{ObjectMeta: metav1.ObjectMeta{UID: types.UID(uid), Name: name, Namespace: "default"},
		Spec: v1.PodSpec{NodeName: "node", TerminationGracePeriodSeconds: &g}, Status: v1.PodStatus{Phase: v1.PodPending}})
	if err != nil {
		t.Fatal(err)
	}
	w.m.Pods.AddPod(p)
	w.could[p.UID] = true
	return p
}

func (w *world) phase(t *testing.T, name string) v1.PodPhase {
	t.Helper()
	p, err := w.api.Get("default", name)
	if err != nil {
		return "gone"
	}
	return p.Status.Phase
}

// TestLifecycle: the real manager writes the phase; defers a terminal
// phase while the pod workers say containers could run (#108366); and
// deletes a deleted pod, with its UID as precondition, only once it is
// terminal in the API and TerminatePod marked it finished.
func TestLifecycle(t *testing.T) {
	w := newWorld()
	ctx := context.Background()
	p := w.create(t, "a", "web")
	w.m.SetPhase(p, v1.PodRunning, nil)
	w.m.Sync(ctx, false)
	if got := w.phase(t, "web"); got != v1.PodRunning {
		t.Fatalf("phase %s, want Running", got)
	}
	deleted, err := w.api.Delete("client", "default", "web", metav1.DeleteOptions{})
	if err != nil || deleted == nil {
		t.Fatalf("graceful delete: %v %v", deleted, err)
	}
	w.m.Pods.UpdatePod(deleted)
	w.m.SetPhase(deleted, v1.PodFailed, nil)
	w.m.Sync(ctx, true)
	if got := w.phase(t, "web"); got != v1.PodRunning {
		t.Fatalf("terminal phase written while containers could run: %s", got)
	}
	w.could["a"] = false
	w.m.Sync(ctx, true)
	if got := w.phase(t, "web"); got != v1.PodFailed {
		t.Fatalf("phase %s once nothing runs, want Failed", got)
	}
	if got := w.phase(t, "web"); got == "gone" {
		t.Fatal("deleted before TerminatePod")
	}
	w.m.Terminated(deleted)
	w.m.Sync(ctx, false)
	if got := w.phase(t, "web"); got != "gone" {
		t.Fatalf("after TerminatePod: %s, want the object gone", got)
	}
	ops := w.api.Ops()
	if last := ops[len(ops)-1]; last.Verb != apiserver.DeleteRemoved || last.Actor != Actor {
		t.Fatalf("last op %+v, want the status manager's removal", last)
	}
}

// TestRecreatedName: the finished status of an old incarnation never
// reaches a new object of the same name: syncPod sees the UID changed.
func TestRecreatedName(t *testing.T) {
	w := newWorld()
	ctx := context.Background()
	old := w.create(t, "old", "web")
	w.could["old"] = false
	w.m.SetPhase(old, v1.PodRunning, nil)
	w.m.Sync(ctx, false)
	if _, err := w.api.Delete("client", "default", "web", metav1.DeleteOptions{GracePeriodSeconds: new(int64)}); err != nil {
		t.Fatal(err)
	}
	w.m.Pods.RemovePod(old)
	w.create(t, "new", "web")
	w.m.Terminated(old)
	n := len(w.api.Ops())
	w.m.Sync(ctx, true)
	for _, op := range w.api.Ops()[n:] {
		if op.Actor == Actor {
			t.Fatalf("the old incarnation's status reached the new object: %+v", op)
		}
	}
	if got := w.phase(t, "web"); got != v1.PodPending {
		t.Fatalf("new object's phase %s, want Pending", got)
	}
}

// TestGeneratedPhase: generateAPIPodStatus's phase rules, restated.
func TestGeneratedPhase(t *testing.T) {
	for _, c := range []struct{ computed, cached, api, want v1.PodPhase }{
		{v1.PodRunning, "", v1.PodRunning, v1.PodRunning},
		{v1.PodRunning, v1.PodSucceeded, v1.PodRunning, v1.PodSucceeded}, // the status manager's terminal phase stays
		{v1.PodRunning, "", v1.PodFailed, v1.PodFailed},                  // the API's terminal phase wins
		{v1.PodSucceeded, v1.PodSucceeded, v1.PodFailed, v1.PodFailed},   // no transition out of a terminal API phase
		{v1.PodSucceeded, "", v1.PodRunning, v1.PodSucceeded},
		{v1.PodFailed, v1.PodRunning, v1.PodPending, v1.PodFailed},
	} {
		if got := generatedPhase(c.computed, c.cached, c.api); got != c.want {
			t.Errorf("generatedPhase(%s, %s, %s) = %s, want %s", c.computed, c.cached, c.api, got, c.want)
		}
	}
}
