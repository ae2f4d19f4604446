package evictmgr

import (
	"bytes"
	"context"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"os/exec"
	"path/filepath"
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
)

// TestLinknameSignature guards the two linknames: it parses
// eviction_manager.go of the kubelet module in use and fails unless
// synchronize's and waitForPodsCleanup's parameters and results are,
// token for token, ours without the receiver.
func TestLinknameSignature(t *testing.T) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "k8s.io/kubernetes").Output()
	if err != nil {
		t.Fatalf("go list -m k8s.io/kubernetes: %v", err)
	}
	file := filepath.Join(strings.TrimSpace(string(out)), "pkg", "kubelet", "eviction", "eviction_manager.go")
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

// TestLinknameGuardCatchesDrift: a synchronize with one parameter more
// must not render like ours.
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

func declsOf(t *testing.T, path string, src any) map[string]string {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, src, 0)
	if err != nil {
		t.Fatalf("parse %s: %v", path, err)
	}
	out := map[string]string{}
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok {
			continue
		}
		name, skip := fd.Name.Name, 0
		if fd.Recv == nil {
			skip = 1 // ours: the receiver is the first parameter
		}
		if name == "synchronize" || name == "waitForPodsCleanup" {
			out[name] = render(t, fset, stripNames(fd.Type, skip))
		}
	}
	return out
}

func stripNames(ft *ast.FuncType, skip int) *ast.FuncType {
	flat := func(fl *ast.FieldList, skip int) *ast.FieldList {
		if fl == nil {
			return nil
		}
		out := &ast.FieldList{}
		for _, f := range fl.List {
			for range max(len(f.Names), 1) {
				out.List = append(out.List, &ast.Field{Type: f.Type})
			}
		}
		out.List = out.List[skip:]
		return out
	}
	return &ast.FuncType{Params: flat(ft.Params, skip), Results: flat(ft.Results, 0)}
}

func render(t *testing.T, fset *token.FileSet, n ast.Node) string {
	t.Helper()
	var b bytes.Buffer
	if err := printer.Fprint(&b, fset, n); err != nil {
		t.Fatal(err)
	}
	return strings.Join(strings.Fields(b.String()), " ")
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
