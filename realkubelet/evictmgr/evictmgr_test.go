package evictmgr

import (
	"context"
	"go/ast"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/go-logr/logr"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"

	"github.com/podsim/podsim/realkubelet/drift"
)

// TestLinknameSignature guards the two linknames: it parses
// eviction_manager.go of the kubelet module in use and fails unless
// synchronize's and waitForPodsCleanup's parameters and results are,
// token for token, ours without the receiver.
func TestLinknameSignature(t *testing.T) {
	file := drift.UpstreamFile(t, "pkg/kubelet/eviction/eviction_manager.go")
	up, ours := declsOf(t, file, nil), declsOf(t, "evictmgr.go", nil)
	for _, name := range []string{"synchronize", "waitForPodsCleanup"} {
		if up[name] == "" {
			t.Fatalf("%s: no method %s upstream: the linkname target is gone", file, name)
		}
		// Upstream names its own package's types bare.
		if got := strings.ReplaceAll(ours[name], "eviction.", ""); got != up[name] {
			t.Errorf("%s drifted:\nupstream: %s\nours:     %s", name, up[name], got)
		}
	}
}

// TestLinknameGuardCatchesDrift: a synchronize with one parameter more,
// a waitForPodsCleanup with one fewer, must not render like ours.
func TestLinknameGuardCatchesDrift(t *testing.T) {
	src := `package p
func (m *managerImpl) synchronize(ctx context.Context, diskInfoProvider DiskInfoProvider, podFunc ActivePodsFunc, extra bool) ([]*v1.Pod, error) { return nil, nil }
func (m *managerImpl) waitForPodsCleanup(podCleanedUpFunc PodCleanedUpFunc, pods []*v1.Pod) {}`
	drifted, ours := declsOf(t, "drifted.go", src), declsOf(t, "evictmgr.go", nil)
	for _, name := range []string{"synchronize", "waitForPodsCleanup"} {
		if drifted[name] == strings.ReplaceAll(ours[name], "eviction.", "") {
			t.Errorf("a drifted %s renders like ours", name)
		}
	}
}

// declsOf renders the two methods' types (upstream's; ours minus the
// receiver parameter).
func declsOf(t *testing.T, path string, src any) map[string]string {
	t.Helper()
	f := drift.Parse(t, path, src)
	out := map[string]string{}
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || (fd.Name.Name != "synchronize" && fd.Name.Name != "waitForPodsCleanup") {
			continue
		}
		skip := 0
		if fd.Recv == nil {
			skip = 1 // ours: the receiver is the first parameter
		}
		out[fd.Name.Name] = f.Func(fd.Type, skip)
	}
	return out
}

func pod(uid string, prio int32) *v1.Pod {
	return &v1.Pod{ObjectMeta: metav1.ObjectMeta{UID: types.UID(uid), Name: uid, Namespace: "default",
		Annotations: map[string]string{"kubernetes.io/config.source": "api"}}, Spec: v1.PodSpec{Priority: &prio}}
}

// TestRealManagerEvictsRankedFirst: under pressure the real manager evicts
// the pod the stats rank first (evict=true, grace 1, a Failed status),
// skips a critical one, waits for its cleanup, and evicts nothing without
// pressure.
func TestRealManagerEvictsRankedFirst(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		var got []string
		kill := func(p *v1.Pod, evict bool, grace *int64, fn func(*v1.PodStatus)) error {
			s := v1.PodStatus{Phase: v1.PodRunning}
			fn(&s)
			mu.Lock()
			got = append(got, string(p.UID)+" "+string(s.Phase)+" "+map[bool]string{true: "evict"}[evict]+" "+
				map[bool]string{true: "grace1"}[*grace == 1])
			mu.Unlock()
			return nil
		}
		m, err := New(klog.NewContext(context.Background(), logr.Discard()), kill)
		if err != nil {
			t.Fatal(err)
		}
		pods := []*v1.Pod{pod("a", 0), pod("b", 0), pod("c", 2_000_000_000)}
		cleaned := false
		m.Stats.Set(false, "b", pods)
		m.Cycle(pods, func(*v1.Pod) bool { return cleaned }, logr.Discard())
		synctest.Wait()
		time.Sleep(time.Second)      // the manager acts on stats newer than its last look
		m.Stats.Set(true, "c", pods) // the critical pod ranks after the others whatever its use
		if !m.Cycle(pods, func(*v1.Pod) bool { return cleaned }, logr.Discard()) {
			t.Fatal("a cycle still ran")
		}
		synctest.Wait()
		if !m.Busy() {
			t.Fatal("the cycle did not wait for the cleanup")
		}
		cleaned = true
		time.Sleep(2 * time.Second)
		synctest.Wait()
		if m.Busy() {
			t.Fatal("the cycle did not end after the cleanup")
		}
		if len(got) != 1 || (got[0] != "a Failed evict grace1" && got[0] != "b Failed evict grace1") {
			t.Fatalf("kills %q, want one eviction of a non-critical pod with grace 1", got)
		}
		if ev := m.Evicted(); len(ev) != 2 || len(ev[0]) != 0 || len(ev[1]) != 1 {
			t.Fatalf("evicted per cycle %v", ev)
		}
	})
}
