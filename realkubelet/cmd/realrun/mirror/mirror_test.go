package mirror

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
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

// TestLockRefusesAnotherProcess: a directory this process locked is
// locked again without error, and another process's lock on it is
// refused with a message naming it (the helper process takes the lock
// and waits).
func TestLockRefusesAnotherProcess(t *testing.T) {
	if dir := os.Getenv("MIRROR_LOCK_HELPER"); dir != "" {
		if err := Lock(dir); err != nil {
			os.Exit(3)
		}
		os.Stdout.WriteString("locked\n")
		os.Stdin.Read(make([]byte, 1)) // until the parent closes stdin
		os.Exit(0)
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run", "^TestLockRefusesAnotherProcess$")
	cmd.Env = append(os.Environ(), "MIRROR_LOCK_HELPER="+dir)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { stdin.Close(); cmd.Wait() }()
	buf := make([]byte, 7)
	if _, err := io.ReadFull(stdout, buf); err != nil || string(buf) != "locked\n" {
		t.Fatalf("the helper did not lock %s: %q, %v", dir, buf, err)
	}
	if err := Lock(dir); err == nil || !strings.Contains(err.Error(), "in use by another realrun") {
		t.Errorf("Lock of a directory another process holds: %v, want a refusal", err)
	}
	other := t.TempDir()
	if err := Lock(other); err != nil {
		t.Fatal(err)
	}
	if err := Lock(other); err != nil {
		t.Errorf("Lock of a directory this process holds: %v", err)
	}
}
