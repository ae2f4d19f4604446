package realkubelet

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/podsim/podsim/realkubelet/script"
	"github.com/podsim/podsim/realkubelet/shutdown"
)

// TestRegressionScripts replays every counterexample under testdata: each
// must still produce the finding classes its "expect" lines name (so a
// kubelet version that fixes one shows up here) and nothing unexplained.
func TestRegressionScripts(t *testing.T) {
	for _, file := range scriptFiles(t) {
		t.Run(filepath.Base(file), func(t *testing.T) {
			moves, expect := readScript(t, file)
			if len(expect) == 0 {
				t.Fatalf("no expect line")
			}
			r := runScript(t, moves)
			got := r.Classes()
			for _, want := range expect {
				if !slices.Contains(got, want) {
					t.Errorf("class %s not found; got %v", want, got)
				}
			}
			for _, f := range r.Unexplained() {
				t.Errorf("unexplained: %s", f)
			}
			if t.Failed() {
				for _, f := range r.Findings {
					t.Logf("finding: %s", f)
				}
			}
		})
	}
}

// TestCleanScriptHasNoFindings is the negative case for the whole
// pipeline: a pod created, synced, deleted gracefully and driven to the
// end produces no finding at all.
func TestCleanScriptHasNoFindings(t *testing.T) {
	moves, _, err := script.Parse("create a\nrelease a ok\ndelete a grace=5\nrelease a ok\nrelease a ok\n")
	if err != nil {
		t.Fatal(err)
	}
	if r := runScript(t, moves); r.Failed() {
		t.Fatalf("findings on a clean run: %v", r.Findings)
	}
}

// scriptFiles are the regression scripts under testdata this build can
// run: a script with logind-restart needs a kubelet from v1.37
// (scriptsNeedingLogind).
func scriptFiles(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("testdata/*.script")
	if err != nil || len(files) == 0 {
		t.Fatalf("no scripts under testdata (%v)", err)
	}
	skip := scriptsNeedingLogind(t)
	return slices.DeleteFunc(files, func(f string) bool { return slices.Contains(skip, f) })
}

// scriptsNeedingLogind are the regression scripts with a logind-restart
// move if this build cannot run them (the pin: shutdown.RestartSupported);
// make real KUBE_ROOT=v1.37.2 runs them.
func scriptsNeedingLogind(t *testing.T) []string {
	t.Helper()
	if shutdown.RestartSupported() == nil {
		return nil
	}
	files, _ := filepath.Glob("testdata/*.script")
	var out []string
	for _, f := range files {
		moves, _ := readScript(t, f)
		if slices.ContainsFunc(moves, func(m script.Move) bool { return m.Kind == script.MoveLogindRestart }) {
			out = append(out, f)
		}
	}
	return out
}

// readScript reads and parses one script file.
func readScript(t *testing.T, file string) (moves []script.Move, expect []string) {
	t.Helper()
	text, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	moves, expect, err = script.Parse(string(text))
	if err != nil {
		t.Fatal(err)
	}
	return moves, expect
}
