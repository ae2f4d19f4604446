package scratch

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestTreeTags: a tree whose status cache reads take a context is built
// with podsim_cachectx, and its slot says so; one with the reads of v1.36
// and v1.37, or without the file, gets no tag.
func TestTreeTags(t *testing.T) {
	const v137 = "type ROCache interface {\n\tGet(types.UID) (*PodStatus, error)\n\tGetNewerThan(types.UID, time.Time) (*PodStatus, error)\n}\n"
	const v138 = "type ROCache interface {\n\tGet(context.Context, types.UID) (*PodStatus, error)\n\tGetNewerThan(context.Context, types.UID, time.Time) (*PodStatus, error)\n}\n"
	tree := func(cache string) string {
		dir := fakeTree(t)
		if cache != "" {
			p := filepath.Join(dir, "pkg", "kubelet", "container", "cache.go")
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte("package container\n\n"+cache), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	for _, c := range []struct {
		name, cache string
		want        []string
	}{{"v1.37", v137, nil}, {"v1.38", v138, []string{"podsim_cachectx"}}, {"no cache.go", "", nil}} {
		dir := tree(c.cache)
		if tags, _ := TreeTags(dir); !slices.Equal(tags, c.want) {
			t.Errorf("%s: tags %q, want %q", c.name, tags, c.want)
		}
		s, err := Prepare(t.TempDir(), "candidate", dir, "/mod")
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(s.Tags, c.want) || strings.Contains(s.Layout, "-tags") != (c.want != nil) {
			t.Errorf("%s: slot tags %q, layout %q", c.name, s.Tags, s.Layout)
		}
	}
	if got := (Slot{Tags: []string{"a", "b"}}).goTest("-o", "x"); !slices.Equal(got, []string{"test", "-c", "-o", "x", "-tags=a,b"}) {
		t.Errorf("go test line with tags: %q", got)
	}
	if got := (Slot{}).goTest("-o", "x"); !slices.Equal(got, []string{"test", "-c", "-o", "x"}) {
		t.Errorf("go test line without tags: %q", got)
	}
}

// TestStartEndsOnContext: v1.37's Start, whose reconnect loop waits on its
// context, is told from v1.36's, which sleeps forever, and from a Start
// whose only ctx.Done is in the function after it.
func TestStartEndsOnContext(t *testing.T) {
	const v136 = "func (m *managerImpl) Start(ctx context.Context) error {\n\tgo func() {\n\t\tfor {\n\t\t\t<-stop\n\t\t\ttime.Sleep(dbusReconnectPeriod)\n\t\t}\n\t}()\n\treturn nil\n}\n"
	const v137 = "func (m *managerImpl) Start(ctx context.Context) error {\n\tgo func() {\n\t\tfor {\n\t\t\tselect {\n\t\t\tcase <-stop:\n\t\t\tcase <-ctx.Done():\n\t\t\t\treturn\n\t\t\t}\n\t\t}\n\t}()\n\treturn nil\n}\n"
	const renamed = "func (mgr *managerImpl) Start(c context.Context) error {\n\t<-c.Done()\n\treturn nil\n}\n"
	const after = "\nfunc (m *managerImpl) start(ctx context.Context) (chan struct{}, error) {\n\t<-ctx.Done()\n\treturn nil, nil\n}\n"
	for _, c := range []struct {
		name, src string
		want      bool
	}{{"v1.36", v136 + after, false}, {"v1.37", v137 + after, true}, {"renamed", renamed, true}, {"no Start", after, false}} {
		if got := startEndsOnContext([]byte(c.src)); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
	// The releases in the module cache, if there: the pin has v1.36's
	// loop, v1.37.2 and later the one that ends.
	for rel, want := range map[string]bool{"v1.36.3": false, "v1.37.2": true, "v1.38.0-beta.0": true} {
		b, err := os.ReadFile(filepath.Join(modCache(t), "k8s.io", "kubernetes@"+rel, "pkg/kubelet/nodeshutdown/nodeshutdown_manager_linux.go"))
		if err != nil {
			continue
		}
		if got := startEndsOnContext(b); got != want {
			t.Errorf("%s: %v, want %v", rel, got, want)
		}
	}
}

// modCache is the go command's module cache.
func modCache(t *testing.T) string {
	out, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		t.Skipf("go env GOMODCACHE: %v", err)
	}
	return strings.TrimSpace(string(out))
}
