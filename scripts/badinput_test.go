// Package scripts holds the repository's shell scripts; this test checks
// that bad input to them ends in one line on stderr and exit code 2, before
// anything is built or written.
package scripts

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestRealgateBadInput(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"no tree", nil, "usage: scripts/realgate KUBE_DIR"},
		{"empty tree", []string{""}, "usage: scripts/realgate KUBE_DIR"},
		{"three arguments", []string{dir, dir, dir}, "usage: scripts/realgate KUBE_DIR"},
		{"missing tree", []string{filepath.Join(dir, "none")}, "no such directory"},
		{"tree is a file", []string{file}, "no such directory"},
		{"not a release", []string{"v1.37"}, "no such directory (or a release v1.MINOR.PATCH)"},
		{"report under a file", []string{dir, filepath.Join(file, "report")}, "cannot create it"},
	} {
		t.Run(c.name, func(t *testing.T) { badInput(t, "realgate", nil, c.args, c.want) })
	}
}

func TestRealnextBadInput(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	badInput(t, "realnext", nil, []string{"a", "b"}, "usage: scripts/realnext [OUT_DIR]")
	badInput(t, "realnext", []string{"PRE=yes"}, nil, "PRE=yes: want 1 (pre-releases too, the default) or 0 (releases only)")
}

func TestGodetBadInput(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	badInput(t, "godet", nil, nil, "usage: scripts/godet GOVERSION [OUT_DIR]")
	badInput(t, "godet", nil, []string{"1.27"}, "GOVERSION 1.27: want a Go release such as go1.27.3")
	badInput(t, "godet", nil, []string{"go1.27.3", "a", "b"}, "usage: scripts/godet GOVERSION")
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	badInput(t, "godet", nil, []string{"go1.27.3", filepath.Join(file, "out")}, "cannot create it")
}

// badInput runs script with env and args and wants exit code 2, one line
// on stderr that names the script and says want, and nothing on stdout.
func badInput(t *testing.T, script string, env, args []string, want string) {
	t.Helper()
	cmd := exec.Command("bash", append([]string{script}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 2 {
		t.Fatalf("%s %q: exit %v, want code 2; stderr %q", script, args, err, stderr.String())
	}
	lines := strings.Split(strings.TrimSuffix(stderr.String(), "\n"), "\n")
	if len(lines) != 1 || !strings.HasPrefix(lines[0], script+": ") || !strings.Contains(lines[0], want) {
		t.Fatalf("stderr %q, want one line '%s: …%s…'", stderr.String(), script, want)
	}
	if stdout.Len() != 0 {
		t.Fatalf("stdout %q, want nothing", stdout.String())
	}
}
