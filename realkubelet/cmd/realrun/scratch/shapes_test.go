package scratch

import (
	"os"
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
