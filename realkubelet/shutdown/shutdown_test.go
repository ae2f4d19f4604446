package shutdown

import (
	"context"
	"go/ast"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"

	"github.com/podsim/podsim/realkubelet/drift"
)

// TestLinknameSignature guards the linknames of shutdown.go and
// handover.go: it parses nodeshutdown_manager_linux.go of the kubelet
// module in use and fails unless managerImpl.start's parameters and
// results are, token for token, managerStart's, and systemDbus is a
// func() (dbusInhibiter, error) (handOver stores a func of that type).
// The interface itself is checked where it is used: handOver refuses a
// fake that lacks one of its methods (TestHandOver).
func TestLinknameSignature(t *testing.T) {
	file := drift.UpstreamFile(t, "pkg/kubelet/nodeshutdown/nodeshutdown_manager_linux.go")
	up, ours := declsOf(t, file, nil), ourDecls(t)
	for _, name := range []string{"systemDbus", "start"} {
		if up[name] == "" {
			t.Fatalf("%s: no declaration of %s upstream: the linkname target is gone", file, name)
		}
		if up[name] != ours[name] {
			t.Errorf("%s drifted:\nupstream: %s\nours:     %s", name, up[name], ours[name])
		}
	}
}

// TestLinknameGuardCatchesDrift: a start with another result and a
// systemDbus of another type must not render like ours.
func TestLinknameGuardCatchesDrift(t *testing.T) {
	src := `package p
var systemDbus = func() (dbusInhibiter, bool) { return nil, false }
func (m *managerImpl) start(ctx context.Context) (<-chan struct{}, error) { return nil, nil }`
	drifted, ours := declsOf(t, "drifted.go", src), ourDecls(t)
	for _, name := range []string{"systemDbus", "start"} {
		if drifted[name] == ours[name] {
			t.Errorf("a drifted %s renders like ours: %s", name, ours[name])
		}
	}
}

// ourDecls: managerStart less its receiver, and the systemDbus type
// handOver stores (the declared one is a stand-in).
func ourDecls(t *testing.T) map[string]string {
	ours := declsOf(t, "shutdown.go", nil)
	ours["systemDbus"] = declsOf(t, "want.go", "package p\nvar systemDbus func() (dbusInhibiter, error)")["systemDbus"]
	return ours
}

// declsOf renders systemDbus' type, the dbusInhibiter method set and the
// start method's type (from managerImpl.start upstream, from managerStart
// minus its receiver parameter here).
func declsOf(t *testing.T, path string, src any) map[string]string {
	t.Helper()
	f := drift.Parse(t, path, src)
	out := map[string]string{}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			switch {
			case d.Name.Name == "start" && d.Recv != nil:
				out["start"] = f.Func(d.Type, 0)
			case d.Name.Name == "managerStart":
				out["start"] = f.Func(d.Type, 1)
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					if s.Name.Name == "dbusInhibiter" {
						out["dbusInhibiter"] = f.MethodSet(s.Type.(*ast.InterfaceType))
					}
				case *ast.ValueSpec:
					if s.Names[0].Name != "systemDbus" {
						continue
					}
					if s.Type != nil {
						out["systemDbus"] = f.Func(s.Type.(*ast.FuncType), 0)
					} else if lit, ok := s.Values[0].(*ast.FuncLit); ok {
						out["systemDbus"] = f.Func(lit.Type, 0)
					}
				}
			}
		}
	}
	return out
}

func pod(uid string, prio int32, grace int64) *v1.Pod {
	return &v1.Pod{ObjectMeta: metav1.ObjectMeta{UID: types.UID(uid), Name: uid, Namespace: "default"},
		Spec: v1.PodSpec{Priority: &prio, TerminationGracePeriodSeconds: &grace}}
}

type kill struct {
	uid   types.UID
	grace int64
	at    time.Duration
	phase v1.PodPhase
}

// TestRealManagerKillsByGroup: the real manager, triggered through the fake
// logind, kills the low-priority group first with grace min(group, spec),
// waits the group's grace (the kills here never return before it), then
// the high group; admission closes at the trigger; Done once it is over.
func TestRealManagerKillsByGroup(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		var mu sync.Mutex
		var kills []kill
		block := make(chan struct{})
		pods := []*v1.Pod{pod("a", 0, 30), pod("b", 1000, 1), pod("c", 5, 2)}
		m, err := Start(context.Background(), Config{
			Groups:     []Group{{Priority: 1000, Grace: 3}, {Priority: 0, Grace: 5}},
			ActivePods: func() []*v1.Pod { return pods },
			Kill: func(p *v1.Pod, evict bool, grace *int64, fn func(*v1.PodStatus)) error {
				s := v1.PodStatus{Phase: v1.PodRunning}
				fn(&s)
				mu.Lock()
				kills = append(kills, kill{p.UID, *grace, time.Since(start), s.Phase})
				mu.Unlock()
				<-block
				return nil
			},
			Logger: klog.Background(),
		})
		if err != nil {
			t.Fatal(err)
		}
		if m.ShuttingDown() || !m.Admit(pod("x", 0, 1)).Admit {
			t.Fatal("shutting down before the event")
		}
		m.Trigger()
		synctest.Wait()
		if !m.ShuttingDown() || m.Admit(pod("x", 0, 1)).Admit {
			t.Fatal("admission still open after the event")
		}
		time.Sleep(20 * time.Second)
		synctest.Wait()
		if !m.Done() {
			t.Fatal("processShutdownEvent did not return after both groups' grace")
		}
		close(block)
		m.Stop()
		slices.SortFunc(kills, func(a, b kill) int { return strings.Compare(string(a.uid), string(b.uid)) })
		want := []kill{{"a", 5, 0, v1.PodFailed}, {"b", 1, 5 * time.Second, v1.PodFailed}, {"c", 2, 0, v1.PodFailed}}
		if !slices.Equal(kills, want) {
			t.Fatalf("kills %v, want %v", kills, want)
		}
	})
}

// TestLogindPreparingForShutdown: the fake logind's PreparingForShutdown
// is logind's, not a connection's: false until logind announces a
// shutdown (Trigger), false again once it withdraws it (Withdraw), and
// true from the start for a manager started during one (Config.Preparing,
// a kubelet restarted then). Nothing in the pinned kubelet reads it; the
// property is there for a kubelet that asks at its start (#122674).
func TestLogindPreparingForShutdown(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := func(preparing bool) *Manager {
			m, err := Start(context.Background(), Config{Groups: []Group{{Priority: 0, Grace: 1}},
				ActivePods: func() []*v1.Pod { return nil }, Logger: klog.Background(), Preparing: preparing,
				Kill: func(*v1.Pod, bool, *int64, func(*v1.PodStatus)) error { return nil }})
			if err != nil {
				t.Fatal(err)
			}
			return m
		}
		preparing := func(m *Manager) bool {
			p, err := m.bus.PreparingForShutdown()
			if err != nil {
				t.Fatal(err)
			}
			return p
		}
		m := start(false)
		if preparing(m) {
			t.Error("preparing before logind announced a shutdown")
		}
		m.Trigger()
		synctest.Wait()
		if !preparing(m) {
			t.Error("not preparing after logind announced the shutdown")
		}
		m.Withdraw()
		if preparing(m) {
			t.Error("still preparing after logind withdrew the shutdown")
		}
		m.Stop()
		later := start(true)
		if !preparing(later) || later.ShuttingDown() {
			t.Errorf("a manager started during a shutdown: preparing %v, shutting down %v; want preparing, and (this kubelet never asks) not shutting down",
				preparing(later), later.ShuttingDown())
		}
		later.Stop()
		synctest.Wait()
	})
}
