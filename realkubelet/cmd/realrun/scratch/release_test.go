package scratch

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestStagingModules: the staging modules are the go.mod's replaces into
// ./staging/src, and nothing else.
func TestStagingModules(t *testing.T) {
	gomod := "module k8s.io/kubernetes\n\nreplace (\n\tk8s.io/api => ./staging/src/k8s.io/api\n" +
		"\tk8s.io/kubelet => ./staging/src/k8s.io/kubelet\n\tgithub.com/x/y => github.com/x/z v1.0.0\n)\n" +
		"replace k8s.io/cri-api => ./staging/src/k8s.io/cri-api\n"
	if got := stagingModules([]byte(gomod)); !slices.Equal(got, []string{"k8s.io/api", "k8s.io/kubelet", "k8s.io/cri-api"}) {
		t.Errorf("staging modules %q", got)
	}
}

// TestReleaseTree: a release is assembled once, as a checkout that
// checkTree accepts, with each staging module at v0.MINOR.PATCH under
// staging/src; a staging module the proxy does not serve is an empty
// module (a go.mod, no package); a pre-release's staging modules carry its
// suffix; a release the proxy does not serve is an error and leaves no
// tree marked complete.
func TestReleaseTree(t *testing.T) {
	cache, root := t.TempDir(), t.TempDir()
	write := func(rel, text string) {
		p := filepath.Join(cache, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o444); err != nil {
			t.Fatal(err)
		}
	}
	write("kubernetes@v1.37.2/go.mod", "module k8s.io/kubernetes\n\nreplace k8s.io/api => ./staging/src/k8s.io/api\n"+
		"replace k8s.io/sample-controller => ./staging/src/k8s.io/sample-controller\n")
	write("kubernetes@v1.37.2/pkg/kubelet/pod_workers.go", "package kubelet\n")
	write("api@v0.37.2/go.mod", "module k8s.io/api\n")
	var asked []string
	fetch := func(mods []string) (map[string]string, map[string]string, error) {
		asked = append(asked, mods...)
		dirs, failed := map[string]string{}, map[string]string{}
		for _, m := range mods {
			d := filepath.Join(cache, strings.TrimPrefix(m, "k8s.io/"))
			if _, err := os.Stat(d); err != nil {
				failed[m] = "not served"
				continue
			}
			dirs[m] = d
		}
		return dirs, failed, nil
	}
	tree, err := ReleaseTree(root, "v1.37.2", fetch, t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	if err := CheckTree("kubernetes", tree); err != nil {
		t.Errorf("the assembled tree: %v", err)
	}
	if s, err := Prepare(root, "candidate", tree, "/mod"); err != nil || s.Name() != "kubernetes v1.37.2" {
		t.Errorf("the release's slot is called %q (%v), want kubernetes v1.37.2", s.Name(), err)
	}
	if s, _ := Prepare(root, "base", filepath.Dir(tree), "/mod"); s.Name() != filepath.Dir(tree) {
		t.Errorf("a tree that is not a release's is called %q", s.Name())
	}
	if _, err := os.Stat(filepath.Join(tree, "staging", "src", "k8s.io", "api", "go.mod")); err != nil {
		t.Errorf("staging module api: %v", err)
	}
	standIn := filepath.Join(tree, "staging", "src", "k8s.io", "sample-controller")
	if b, err := os.ReadFile(filepath.Join(standIn, "go.mod")); err != nil || string(b) != "module k8s.io/sample-controller\n" {
		t.Errorf("the stand-in for a staging module the proxy does not serve: go.mod %q, %v", b, err)
	}
	if ents, _ := os.ReadDir(standIn); len(ents) != 1 {
		t.Errorf("the stand-in holds %d files, want its go.mod alone", len(ents))
	}
	want := []string{"k8s.io/kubernetes@v1.37.2", "k8s.io/api@v0.37.2", "k8s.io/sample-controller@v0.37.2"}
	if !slices.Equal(asked, want) {
		t.Errorf("fetched %q, want %q", asked, want)
	}
	asked = nil
	write("kubernetes@v1.38.0-beta.0/go.mod", "module k8s.io/kubernetes\n\nreplace k8s.io/api => ./staging/src/k8s.io/api\n")
	write("kubernetes@v1.38.0-beta.0/pkg/kubelet/pod_workers.go", "package kubelet\n")
	write("api@v0.38.0-beta.0/go.mod", "module k8s.io/api\n")
	if _, err := ReleaseTree(root, "v1.38.0-beta.0", fetch, t.Logf); err != nil || !slices.Equal(asked, []string{"k8s.io/kubernetes@v1.38.0-beta.0", "k8s.io/api@v0.38.0-beta.0"}) {
		t.Errorf("a pre-release: %v, fetched %q", err, asked)
	}
	asked = nil
	if again, err := ReleaseTree(root, "v1.37.2", fetch, t.Logf); err != nil || again != tree || len(asked) > 0 {
		t.Errorf("second call: %q, %v, fetched %q; want the same tree and no fetch", again, err, asked)
	}
	if _, err := ReleaseTree(root, "v1.99.0", fetch, t.Logf); err == nil || !strings.Contains(err.Error(), "cannot fetch k8s.io/kubernetes@v1.99.0") ||
		!strings.Contains(err.Error(), "`go list -m -versions k8s.io/kubernetes` lists the versions") {
		t.Errorf("an unserved release: %v", err)
	}
	if _, err := os.Stat(filepath.Join(root, "releases", "v1.99.0", "complete")); err == nil {
		t.Error("an unserved release is marked complete")
	}
	newerGo := func(mods []string) (map[string]string, map[string]string, error) {
		return nil, map[string]string{mods[0]: mods[0] + " requires go >= 1.27.0 (running go 1.26.8; GOTOOLCHAIN=local)"}, nil
	}
	if _, err := ReleaseTree(root, "v1.38.0", newerGo, t.Logf); err == nil || !strings.Contains(err.Error(), "set GOTOOLCHAIN=go1.27.0") {
		t.Errorf("a release that needs a newer Go: %v", err)
	}
	broken := func([]string) (map[string]string, map[string]string, error) {
		return nil, nil, fmt.Errorf("no network")
	}
	if _, err := ReleaseTree(root, "v1.36.1", broken, t.Logf); err == nil || !strings.Contains(err.Error(), "no network") {
		t.Errorf("a fetch that fails: %v", err)
	}
}

// TestIsRelease: a release is v1.MINOR.PATCH, unless a directory of that
// name exists.
func TestIsRelease(t *testing.T) {
	for v, want := range map[string]bool{"v1.37.2": true, "v1.37": false, "1.37.2": false, "v2.0.0": false, "v1.37.2-rc.0": true, "v1.38.0-beta.0": true, "v1.38.0-beta": false, "v1.38.0-foo.1": false} {
		if got := IsRelease(v); got != want {
			t.Errorf("IsRelease(%q) = %v, want %v", v, got, want)
		}
	}
	t.Chdir(t.TempDir())
	if err := os.Mkdir("v1.37.2", 0o755); err != nil {
		t.Fatal(err)
	}
	if IsRelease("v1.37.2") || IsModuleRelease("v1.37.2") {
		t.Error("a directory named v1.37.2 is taken for the release")
	}
	for v, want := range map[string]bool{"v1.15.0": true, "v2.0.1": true, "v1.15": false, "1.15.0": false} {
		if got := IsModuleRelease(v); got != want {
			t.Errorf("IsModuleRelease(%q) = %v, want %v", v, got, want)
		}
	}
}
