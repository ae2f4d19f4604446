package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/run"
	"github.com/podsim/podsim/shrink"
)

func TestShrinkBadInputAndPassingSeed(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "s.txt")
	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"shrink", "--seed", "3"}, 2, "shrink needs --scenario and --seed"},
		{[]string{"shrink", "--scenario", "all", "--seed", "3"}, 2, "shrink needs one scenario"},
		{[]string{"shrink", "--scenario", "swarm", "--seed", "x"}, 2, `malformed seed "x"`},
		{[]string{"shrink", "--scenario", "swarm", "--seed", "3", "--strategy", "dfs"}, 2, `unknown strategy "dfs"`},
		{[]string{"shrink", "--scenario", "swarm", "--seed", "3", "--mutant", "B99"}, 2, `unknown mutant "B99"`},
		{[]string{"shrink", "--scenario", "swarm", "--seed", "3", "--max-runs", "0"}, 2, "--max-runs 0"},
		{[]string{"shrink", "--scenario", "swarm", "--seed", "3", "--out", "/nonexistent/dir/s.txt"}, 2, "cannot write"},
		{[]string{"shrink", "--scenario", "swarm", "--seed", "3", "--out", out}, 0, "nothing to shrink"},
	}
	for _, c := range cases {
		stdout, stderr, code := simrun(t, nil, c.args...)
		if code != c.code || !strings.Contains(stdout+stderr, c.want) {
			t.Errorf("%v: got exit %d\nstdout: %s\nstderr: %s\nwant exit %d and %q", c.args, code, stdout, stderr, c.code, c.want)
		}
		if c.code == 2 && (stdout != "" || strings.Count(strings.TrimSpace(stderr), "\n") != 0) {
			t.Errorf("%v: bad input must give one line on stderr and nothing else; got %q, %q", c.args, stdout, stderr)
		}
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Fatalf("a passing seed wrote a script (%v)", err)
	}
}

// TestShrinkScriptsReproduce re-runs the command recorded in the header of
// every regression script simrun shrink made, and wants the same script
// back, byte for byte: the CLI end of shrinking is deterministic, and each
// committed script is what its command makes today. (A script of a
// mutant's failure is added by running its command; this test picks it up.)
func TestShrinkScriptsReproduce(t *testing.T) {
	if testing.Short() {
		t.Skip("re-shrinks every script; -short skips it")
	}
	paths, err := filepath.Glob(filepath.Join("..", "..", "regress", "testdata", "*.txt"))
	if err != nil {
		t.Fatal(err)
	}
	ran := 0
	for _, path := range paths {
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		args := shrinkArgsOf(string(want))
		if args == nil {
			continue
		}
		ran++
		out := filepath.Join(t.TempDir(), filepath.Base(path))
		stdout, stderr, code := simrun(t, nil, append(args, "--out", out)...)
		got, err := os.ReadFile(out)
		if code != 1 || err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s: %v: exit %d (want 1), script differs: %v\nstdout: %s\nstderr: %s\ngot:\n%s", path, args, code, err, stdout, stderr, got)
		}
	}
	t.Logf("%d of %d scripts were made by simrun shrink", ran, len(paths))
}

// shrinkArgsOf reads "# command: simrun shrink ..." from a script header.
func shrinkArgsOf(script string) []string {
	for _, line := range strings.Split(script, "\n") {
		if cmd, ok := strings.CutPrefix(line, "# command: simrun "); ok && strings.HasPrefix(cmd, "shrink ") {
			return strings.Fields(cmd)
		}
	}
	return nil
}

func TestCompletion(t *testing.T) {
	out, _, code := simrun(t, nil, "completion", "bash")
	if code != 0 || !strings.Contains(out, "simrun") {
		t.Fatalf("completion bash: exit %d, %d bytes", code, len(out))
	}
	for _, c := range []struct {
		args []string
		want []string
		not  string
	}{
		{[]string{"__complete", "run", "--scenario", "sw"}, []string{"swarm"}, "early-kill"},
		{[]string{"__complete", "run", "--scenario", ""}, []string{"all", "early-kill", "update-storm"}, "random"},
		{[]string{"__complete", "shrink", "--scenario", ""}, []string{"swarm"}, "all"},
		{[]string{"__complete", "shrink", "--strategy", ""}, []string{"random", "pct"}, "swarm"},
		{[]string{"__complete", "replay", "--strategy", "p"}, []string{"pct"}, "random"},
		{[]string{"__complete", "run", "--strategy", ""}, []string{"random", "pct", "guided", "portfolio"}, "random+pct"},
		{[]string{"__complete", "gate", "--strategy", ""}, []string{"random+pct", "portfolio"}, "guided"},
		{[]string{"__complete", "replay", "--strategy", ""}, []string{"random", "pct"}, "portfolio"},
	} {
		out, _, code := simrun(t, nil, c.args...)
		for _, w := range c.want {
			if code != 0 || !strings.Contains(out, w+"\n") || strings.Contains(out, c.not+"\n") {
				t.Errorf("%v: exit %d, got %q; want %v and not %q", c.args, code, out, c.want, c.not)
			}
		}
	}
}

// TestReportShrunk: what shrink prints for a failure (no seed fails on the
// correct code, so the binary cannot show it until mutants exist).
func TestReportShrunk(t *testing.T) {
	p := plan.Plan{Family: "early-kill", Clients: 1, Actions: []plan.Action{
		{Kind: plan.Create, UID: "a", Grace: -1}, {Kind: plan.Kill, UID: "a"}}}
	s := shrink.Shrunk{
		Original: run.Case{Plan: plan.Plan{Actions: make([]plan.Action, 9)}, Schedule: []int{1, 0, 2}},
		Case:     run.Case{Plan: p, Faults: []int{0, 7}},
		Target:   "safety S3", Runs: 41, Exhausted: true,
		Result: run.Result{Violations: []history.Violation{{Oracle: "safety", Invariant: "S3", Message: "SyncPod of a after its kill"}}},
	}
	var b bytes.Buffer
	reportShrunk(&b, s, "regress/testdata/early-kill-seed12-b2.txt", 41)
	for _, want := range []string{
		"shrunk from 9 actions, 3 schedule and 0 fault choices (2 non-zero)\n",
		"to 2 actions, 0 schedule and 2 fault choices (1 non-zero) in 41 runs, still failing safety S3\n",
		"0s client/0 kill uid=a grace=0\n", "violation: safety S3 at 0s: SyncPod of a after its kill\n",
		"re-run: go test ./regress -run 'TestRegressionScripts/early-kill-seed12-b2'\n",
		"--max-runs 41",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, b.String())
		}
	}
}
