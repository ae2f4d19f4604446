package mirror

import (
	"os"
	"path/filepath"
	"testing"
)

// TestTreeKeepsInStep: the copy has src's files and links but the
// skipped top-level directories; a file src changes is copied again, one
// src loses is removed from the copy, and src is never written.
func TestTreeKeepsInStep(t *testing.T) {
	src, dst := t.TempDir(), filepath.Join(t.TempDir(), "copy")
	write := func(rel, text string) {
		os.MkdirAll(filepath.Dir(filepath.Join(src, rel)), 0o755)
		if err := os.WriteFile(filepath.Join(src, rel), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module x\n")
	write("node/pod.go", "package node\n")
	write("gone.go", "package x\n")
	write(".git/HEAD", "ref\n")
	write("node/.git/keep", "not top-level\n")
	os.Symlink("node/pod.go", filepath.Join(src, "link.go"))
	skip := map[string]bool{".git": true}
	if err := Tree(src, dst, skip); err != nil {
		t.Fatal(err)
	}
	write("node/pod.go", "package node // changed\n")
	os.Remove(filepath.Join(src, "gone.go"))
	if err := Tree(src, dst, skip); err != nil {
		t.Fatal(err)
	}
	for rel, want := range map[string]string{"go.mod": "module x\n", "node/pod.go": "package node // changed\n",
		"link.go": "package node // changed\n", "node/.git/keep": "not top-level\n"} {
		if b, err := os.ReadFile(filepath.Join(dst, rel)); err != nil || string(b) != want {
			t.Errorf("%s in the copy: %q, %v; want %q", rel, b, err, want)
		}
	}
	for _, rel := range []string{"gone.go", ".git"} {
		if _, err := os.Lstat(filepath.Join(dst, rel)); !os.IsNotExist(err) {
			t.Errorf("%s is in the copy (%v)", rel, err)
		}
	}
	if link, err := os.Readlink(filepath.Join(dst, "link.go")); err != nil || link != "node/pod.go" {
		t.Errorf("link.go in the copy: %q, %v; want a link to node/pod.go", link, err)
	}
}
