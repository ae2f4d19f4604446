package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// earlyKillFamily is early-kill's declaration in plan/generate.go, which
// buildWithUnreachableMark patches.
const earlyKillFamily = `{Name: "early-kill", Generate: GenerateEarlyKill, Marks: []string{MarkEarlyKill, MarkCompletionFired}}`

// buildWithUnreachableMark builds simrun from this tree with one change,
// made through `go build -overlay` (the work tree is not touched): the
// early-kill family also declares restart-during-sync, a mark only a
// kubelet restart reaches and early-kill's plans never restart the
// kubelet. It is the mistake the mark check exists for: a family that
// misses a point it claims to reach.
func buildWithUnreachableMark(t *testing.T) string {
	t.Helper()
	src, err := os.ReadFile("../../plan/generate.go")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(src), earlyKillFamily) {
		t.Fatalf("plan/generate.go no longer declares early-kill as %s: update this test", earlyKillFamily)
	}
	patched := strings.Replace(string(src), earlyKillFamily,
		`{Name: "early-kill", Generate: GenerateEarlyKill, Marks: []string{MarkEarlyKill, MarkCompletionFired, MarkRestartDuringSync}}`, 1)
	dir := t.TempDir()
	file := filepath.Join(dir, "generate.go")
	if err := os.WriteFile(file, []byte(patched), 0o644); err != nil {
		t.Fatal(err)
	}
	abs, err := filepath.Abs("../../plan/generate.go")
	if err != nil {
		t.Fatal(err)
	}
	overlay, _ := json.Marshal(map[string]map[string]string{"Replace": {abs: file}})
	overlayFile := filepath.Join(dir, "overlay.json")
	if err := os.WriteFile(overlayFile, overlay, 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "simrun")
	if out, err := exec.Command("go", "build", "-overlay", overlayFile, "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build -overlay: %v\n%s", err, out)
	}
	return bin
}

// TestUnreachedMarkFailsTheBinary: end to end, through a built simrun, a
// declared mark that no seed reaches fails `run` (exit 1, family and mark
// named) in a sweep of at least the family's minimum, only warns in a
// shorter one, and fails `gate` through its correct-code sweep with the
// mark as its only reason. The same sweep on the unpatched binary passes,
// so the exit 1 is the mark's.
func TestUnreachedMarkFailsTheBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("-short (make race): the built binaries are not race-instrumented, so -race adds nothing; make test runs it")
	}
	patched := buildWithUnreachableMark(t)
	const line = "UNREACHED early-kill: mark restart-during-sync reached in 0 of 500 seeds (the family's minimum is 200)"
	sweep := []string{"run", "--scenario", "early-kill", "--no-timing"}
	gate := []string{"gate", "--mutant", "B1", "--seeds", "5", "--start-seeds", "1", "--correct-seeds", "200", "--no-timing"}
	cases := []struct {
		name string
		bin  string
		args []string
		code int
		out  string // in stdout
		err  string // in stderr
	}{
		{"run, default budget", patched, sweep, 1, line, ""},
		{"run, below the minimum", patched, append(sweep, "--seeds", "100"), 0, "",
			"warning: early-kill: mark(s) restart-during-sync unreached in 100 seeds, fewer than the family's minimum 200"},
		{"gate", patched, gate, 1, "UNREACHED early-kill: mark restart-during-sync reached in 0 of 200 seeds (the family's minimum is 200)\n" +
			"GATE FAILED: 0 mutant(s) survived, the correct code failed 0 run(s), 1 coverage mark(s) unreached", ""},
		{"run, unpatched", binary, sweep, 0, "", ""},
	}
	for _, c := range cases {
		stdout, stderr, code := runBinary(t, c.bin, nil, c.args...)
		if code != c.code || !strings.Contains(stdout, c.out) || !strings.Contains(stderr, c.err) ||
			(c.code == 0 && strings.Contains(stdout, "UNREACHED")) {
			t.Errorf("%s: exit %d (want %d)\nstdout %q\nstderr %q", c.name, code, c.code, stdout, stderr)
		}
	}
}
