package gobin

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestBuiltLinksOnceIntoTheCache: a command never built before (its
// source names the test's own scratch directory) is linked, its path names
// an executable that runs, and a second call returns the same cached file.
func TestBuiltLinksOnceIntoTheCache(t *testing.T) {
	dir := t.TempDir()
	src := map[string]string{
		"go.mod":  "module example.com/hello\n\ngo 1.24\n",
		"main.go": "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Print(" + `"` + filepath.ToSlash(dir) + `"` + ") }\n",
	}
	for name, text := range src {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(dir)
	first, err := Built(".")
	if err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(first).Output(); err != nil || string(out) != filepath.ToSlash(dir) {
		t.Fatalf("%s: %v, printed %q, want %q", first, err, out, dir)
	}
	second, err := Built(".")
	if err != nil {
		t.Fatal(err)
	}
	if first != second {
		t.Errorf("two calls gave two executables: %s and %s", first, second)
	}
}

// TestBuiltRefusesANonCommand: a package that is not a main package is an
// error, not a path.
func TestBuiltRefusesANonCommand(t *testing.T) {
	if path, err := Built("github.com/podsim/podsim/plan"); err == nil {
		t.Fatalf("Built(plan) = %q, want an error", path)
	}
}
