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
		t.Run(c.name, func(t *testing.T) {
			cmd := exec.Command("bash", append([]string{"realgate"}, c.args...)...)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != 2 {
				t.Fatalf("exit %v, want code 2; stderr %q", err, stderr.String())
			}
			lines := strings.Split(strings.TrimSuffix(stderr.String(), "\n"), "\n")
			if len(lines) != 1 || !strings.HasPrefix(lines[0], "realgate: ") || !strings.Contains(lines[0], c.want) {
				t.Fatalf("stderr %q, want one line 'realgate: …%s…'", stderr.String(), c.want)
			}
			if stdout.Len() != 0 {
				t.Fatalf("stdout %q, want nothing", stdout.String())
			}
		})
	}
}
