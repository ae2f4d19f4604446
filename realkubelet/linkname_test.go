package realkubelet

import (
	"go/ast"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/kubernetes/pkg/kubelet"

	"github.com/podsim/podsim/realkubelet/drift"
	"github.com/podsim/podsim/realkubelet/podworkers"
	"github.com/podsim/podsim/realkubelet/shutdown"
)

// TestFakeLogindFits: the fake logind has every method of the kubelet's
// node shutdown manager D-Bus interface (realrun's guard runs it before
// anything else on a tree, so that a tree whose manager asks logind for
// more is refused in one line).
func TestFakeLogindFits(t *testing.T) {
	if err := shutdown.FakeFits(); err != nil {
		t.Fatal(err)
	}
}

// TestLinknameSignature guards the go:linknames in podworkers/adapter.go
// and podworkers/killnow.go (it stays in this package: realrun's gate runs
// it from this package's test binary): it parses pod_workers.go of the kubelet module this module
// builds against (from the module cache) and fails unless newPodWorkers'
// and killPodNow's parameter and result types and the podSyncer method set
// are, token for token, the ones adapter.go and killnow.go declare. A linkname with a drifted signature would compile
// and then corrupt memory, so this is the only thing standing between a
// kubelet version bump and undefined behaviour.
func TestLinknameSignature(t *testing.T) {
	upstreamFile := drift.UpstreamFile(t, "pkg/kubelet/pod_workers.go")
	upstream := parseDecls(t, upstreamFile)
	ours := parseDecls(t, "podworkers/adapter.go")
	for name, decl := range parseDecls(t, "podworkers/killnow.go") {
		ours[name] = decl
	}

	for _, name := range []string{"newPodWorkers", "podSyncer", "killPodNow"} {
		up, ok := upstream[name]
		if !ok {
			t.Fatalf("%s: no declaration of %s upstream: the linkname target is gone", upstreamFile, name)
		}
		// adapter.go names upstream's own package "kubelet": its
		// kubelet.PodWorkers is upstream's bare PodWorkers.
		if got := strings.ReplaceAll(ours[name], "kubelet.", ""); got != up {
			t.Errorf("%s drifted:\nupstream: %s\nadapter:  %s", name, up, got)
		}
	}
}

// TestLinknameGuardCatchesDrift is the guard's negative test: a podSyncer
// with one parameter changed, and a killPodNow with one parameter more,
// must not render like ours.
func TestLinknameGuardCatchesDrift(t *testing.T) {
	killSrc := `package p
func killPodNow(ctx context.Context, podWorkers PodWorkers, recorder record.EventRecorder, extra bool) eviction.KillPodFunc {}`
	if drifted, ours := declsOf(t, "drifted.go", killSrc)["killPodNow"], parseDecls(t, "podworkers/killnow.go")["killPodNow"]; drifted == strings.ReplaceAll(ours, "kubelet.", "") {
		t.Fatalf("a drifted killPodNow renders like ours: %s", ours)
	}
	src := `package p
type podSyncer interface {
	SyncTerminatedPod(ctx context.Context, pod *v1.Pod, podStatus *kubecontainer.PodStatus, extra bool) error
}`
	drifted := declsOf(t, "drifted.go", src)["podSyncer"]
	if ours := parseDecls(t, "podworkers/adapter.go")["podSyncer"]; drifted == ours {
		t.Fatalf("a drifted podSyncer renders like ours: %s", ours)
	}
}

func parseDecls(t *testing.T, path string) map[string]string {
	t.Helper()
	return declsOf(t, path, nil)
}

// declsOf renders, for the declarations named newPodWorkers and killPodNow
// (their types: parameters and results, names dropped) and podSyncer (its
// method set), drift's canonical one-line form.
func declsOf(t *testing.T, path string, src any) map[string]string {
	t.Helper()
	f := drift.Parse(t, path, src)
	out := map[string]string{}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if (d.Name.Name == "newPodWorkers" || d.Name.Name == "killPodNow") && d.Recv == nil {
				out[d.Name.Name] = f.Func(d.Type, 0)
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				if ts, ok := s.(*ast.TypeSpec); ok && ts.Name.Name == "podSyncer" {
					out["podSyncer"] = f.MethodSet(ts.Type.(*ast.InterfaceType))
				}
			}
		}
	}
	return out
}

// notPodWorkers has the PodWorkers methods but not upstream's struct.
type notPodWorkers struct{ kubelet.PodWorkers }

// TestWorkerChannelHookRefusesDrift: the reflect/unsafe setter of
// workerChannelFn fits v1.36.3's podWorkers, and refuses anything else
// instead of writing memory it does not understand.
func TestWorkerChannelHookRefusesDrift(t *testing.T) {
	passThrough := func(_ types.UID, in chan struct{}) <-chan struct{} { return in }
	if err := podworkers.SetWorkerChannelFn(podworkers.New(nil, podworkers.Cache{}, func(types.UID) {}), passThrough); err != nil {
		t.Fatalf("the hook does not fit the real podWorkers: %v", err)
	}
	if err := podworkers.SetWorkerChannelFn(&notPodWorkers{}, passThrough); err == nil {
		t.Fatal("the setter accepted a struct without workerChannelFn")
	}
}
