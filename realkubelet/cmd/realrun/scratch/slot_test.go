package scratch

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/podsim/podsim/realkubelet/cmd/realrun/toolrun"
)

// fakeTree is the smallest directory CheckTree accepts.
func fakeTree(t *testing.T) string {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "pkg", "kubelet"), 0o755)
	os.WriteFile(filepath.Join(dir, "go.mod"), []byte("// generated\nmodule k8s.io/kubernetes\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "pkg", "kubelet", "pod_workers.go"), []byte("package kubelet\n"), 0o644)
	return dir
}

// TestMirrorAndWorkFile: the mirror copies a tree (checkout layout with
// staging modules), removes files the tree lost, never writes into the
// tree, and the go.work replaces kubernetes and each staging module.
func TestMirrorAndWorkFile(t *testing.T) {
	src := fakeTree(t)
	os.MkdirAll(filepath.Join(src, "staging", "src", "k8s.io", "api"), 0o755)
	os.WriteFile(filepath.Join(src, "staging", "src", "k8s.io", "api", "go.mod"), []byte("module k8s.io/api\n"), 0o644)
	os.MkdirAll(filepath.Join(src, ".git"), 0o755)
	os.WriteFile(filepath.Join(src, ".git", "HEAD"), []byte("x"), 0o644)
	os.WriteFile(filepath.Join(src, "gone.go"), []byte("x"), 0o644)
	root := t.TempDir()
	s, err := Prepare(root, "candidate", src, "/mod")
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(src, "gone.go"))
	if _, err := Prepare(root, "candidate", src, "/mod"); err != nil {
		t.Fatal(err)
	}
	mirror := filepath.Join(s.Dir, "tree")
	if _, err := os.Stat(filepath.Join(mirror, "pkg", "kubelet", "pod_workers.go")); err != nil {
		t.Errorf("not mirrored: %v", err)
	}
	for _, p := range []string{"gone.go", ".git"} {
		if _, err := os.Stat(filepath.Join(mirror, p)); err == nil {
			t.Errorf("%s is in the mirror", p)
		}
	}
	w, _ := os.ReadFile(s.GoWork)
	for _, want := range []string{"use /mod", "replace k8s.io/kubernetes => " + mirror,
		"replace k8s.io/api => " + filepath.Join(mirror, "staging", "src", "k8s.io", "api")} {
		if !strings.Contains(string(w), want) {
			t.Errorf("go.work lacks %q:\n%s", want, w)
		}
	}
	if !strings.Contains(s.Layout, "checkout") || s.Unstaged {
		t.Errorf("layout %q, unstaged %v", s.Layout, s.Unstaged)
	}
	if u, err := Prepare(t.TempDir(), "candidate", fakeTree(t), "/mod"); err != nil || !u.Unstaged {
		t.Errorf("a tree without staging/src: unstaged %v (%v)", u.Unstaged, err)
	}
	entries, _ := os.ReadDir(src)
	for _, e := range entries {
		if e.Name() == "go.work" {
			t.Errorf("wrote into the tree")
		}
	}
}

// TestBuildAdvice: a failed build's advice follows the package that
// failed, and its excerpt skips the go command's module fetches (the
// excerpt of a kubernetes v1.37 tree once showed three "go: downloading"
// lines and nothing of the error).
func TestBuildAdvice(t *testing.T) {
	out := "go: downloading github.com/cyphar/filepath-securejoin v0.7.0\ngo: downloading github.com/google/cadvisor/lib v0.60.5\n" +
		"# github.com/podsim/podsim/realkubelet/shutdown\nshutdown/shutdown.go:171:22: not enough arguments in call to m.real.Admit\n" +
		"\thave (*lifecycle.PodAdmitAttributes)\n"
	if got := toolrun.FirstLines([]byte(out), 2); got != "shutdown/shutdown.go:171:22: not enough arguments in call to m.real.Admit | have (*lifecycle.PodAdmitAttributes)" {
		t.Errorf("excerpt %q", got)
	}
	missing := "a.go:26:2: no required module provides package k8s.io/api/x; to add it:\n\tgo get k8s.io/api/x\nb.go:3:2: no required module provides package k8s.io/api/y; to add it:\n"
	if got := toolrun.FirstLines([]byte(missing), 2); strings.Contains(got, "go get") || !strings.Contains(got, "k8s.io/api/y") {
		t.Errorf("excerpt of missing packages %q: want both errors, not the go get hint", got)
	}
	cases := []struct {
		out, want string
		unstaged  bool
	}{
		{out, "that realkubelet/shutdown calls", false},
		{"# github.com/podsim/podsim/realkubelet/kstatus\nx\n# github.com/podsim/podsim/realkubelet/shutdown\ny\n", "realkubelet/kstatus, realkubelet/shutdown calls", false},
		{"# github.com/podsim/podsim/realkubelet/shutdown\nx\n# github.com/podsim/podsim/realkubelet/podworkers\ny\n", "pod workers no longer fit", false},
		{"# k8s.io/kubernetes/pkg/kubelet [k8s.io/kubernetes/pkg/kubelet.test]\nx\n", "the tree's own packages do not compile here (k8s.io/kubernetes/pkg/kubelet)", false},
		{"something else went wrong\n", "pod workers no longer fit", false},
		{"# github.com/podsim/podsim/realkubelet\nevictmgr/evictmgr.go:41:2: no required module provides package k8s.io/kubernetes/pkg/kubelet/eviction; to add it:\n",
			"lacks packages realkubelet imports (k8s.io/kubernetes/pkg/kubelet/eviction)", false},
		// a module-shaped v1.37.2 with v1.36's staging modules
		{"tree/pkg/scheduler/eventhandlers.go:26:2: no required module provides package k8s.io/api/scheduling/v1alpha3; to add it:\n",
			"realkubelet/go.mod's staging modules, which lack packages it imports (k8s.io/api/scheduling/v1alpha3): give a checkout", true},
		{"tree/pkg/scheduler/eventhandlers.go:26:2: no required module provides package k8s.io/api/scheduling/v1alpha3; to add it:\n",
			"the tree lacks packages realkubelet imports (k8s.io/api/scheduling/v1alpha3)", false},
		{"go: module /s/candidate/tree requires go >= 1.27.0 (running go 1.26.8; GOTOOLCHAIN=local)\n",
			"the tree needs Go 1.27.0 and this go command is 1.26.8: set GOTOOLCHAIN=go1.27.0 (or a newer go1.27.N;", false},
		{"tree/pkg/kubelet/kubelet_network_linux.go:26:2: sigs.k8s.io/iptables-wrappers@v1.0.0: reading https://proxy.golang.org/sigs.k8s.io/iptables-wrappers/@v/v1.0.0.zip: 403 Forbidden\n\tserver response: This module version is not available.\n",
			"the build needs sigs.k8s.io/iptables-wrappers@v1.0.0, which the module proxy does not serve (403 Forbidden)", false},
	}
	for _, c := range cases {
		if got := buildAdvice([]byte(c.out), c.unstaged); !strings.Contains(got, c.want) {
			t.Errorf("advice for %q:\n%s\nwant it to say %q", c.out, got, c.want)
		}
	}
}

// TestWorkGo: a slot's go.work names the tree's Go where it is newer than
// 1.26.0 (so GOTOOLCHAIN=auto builds v1.38 with Go 1.27), else 1.26.0.
func TestWorkGo(t *testing.T) {
	for gomod, want := range map[string]string{
		"module k8s.io/kubernetes\n\ngo 1.27.0\n\ngodebug default=go1.27\n": "1.27.0",
		"module k8s.io/kubernetes\n\ngo 1.25.0\n":                           "1.26.0",
		"module k8s.io/kubernetes\n\ngo 1.28\n":                             "1.28",
		"module k8s.io/kubernetes\n":                                        "1.26.0",
		"module k8s.io/kubernetes\n\ngo banana\n":                           "1.26.0",
	} {
		dir := fakeTree(t)
		if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(gomod), 0o644); err != nil {
			t.Fatal(err)
		}
		if got := WorkGo(dir); got != want {
			t.Errorf("go.mod %q: go.work's go %s, want %s", gomod, got, want)
		}
		s, err := Prepare(t.TempDir(), "candidate", dir, "/mod")
		if err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(s.GoWork); !strings.HasPrefix(string(b), "go "+want+"\n") {
			t.Errorf("go.mod %q: go.work begins %q, want go %s", gomod, b[:min(len(b), 12)], want)
		}
	}
	if got := WorkGo(t.TempDir()); got != "1.26.0" {
		t.Errorf("no go.mod: %s", got)
	}
}

// TestLogindMismatch: the guard's one line for a tree whose manager's
// D-Bus interface has a method the fake logind lacks quotes the test's
// reason without its file position; output without it falls back to its
// first lines.
func TestLogindMismatch(t *testing.T) {
	out := []byte("--- FAIL: TestFakeLogindFits (0.00s)\n    linkname_test.go:24: the fake logind (*shutdown.Logind) lacks a method of the kubelet's nodeshutdown.dbusInhibiter: [IsShuttingDown func() (bool, error)]\nFAIL\n")
	want := "the fake logind (*shutdown.Logind) lacks a method of the kubelet's nodeshutdown.dbusInhibiter: [IsShuttingDown func() (bool, error)]"
	if got := logindMismatch(out); got != want {
		t.Errorf("logindMismatch = %q, want %q", got, want)
	}
	if got := logindMismatch([]byte("panic: something else\nmore\nand more\n")); strings.Contains(got, "and more") || !strings.Contains(got, "panic") {
		t.Errorf("fallback = %q, want the first two lines", got)
	}
}
