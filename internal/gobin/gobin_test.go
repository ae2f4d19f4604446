package gobin

import (
	"os/exec"
	"strings"
	"testing"
)

// TestBuiltIsCachedAndRuns: the path names an executable that runs, and a
// second call returns the same cached file (no second link).
func TestBuiltIsCachedAndRuns(t *testing.T) {
	first, err := Built("github.com/podsim/podsim/cmd/simrun")
	if err != nil {
		t.Fatal(err)
	}
	second, err := Built("github.com/podsim/podsim/cmd/simrun")
	if err != nil {
		t.Fatal(err)
	}
	if first != second {
		t.Errorf("two calls built two executables: %s and %s", first, second)
	}
	out, err := exec.Command(first, "--version").CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), "simrun ") {
		t.Fatalf("%s --version: %v, %q", first, err, out)
	}
}

// TestBuiltRefusesANonCommand: a package that is not a main package is an
// error, not a path.
func TestBuiltRefusesANonCommand(t *testing.T) {
	if path, err := Built("github.com/podsim/podsim/plan"); err == nil {
		t.Fatalf("Built(plan) = %q, want an error", path)
	}
}
