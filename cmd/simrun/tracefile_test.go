package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/run"
	"github.com/podsim/podsim/sim"
)

// TestReplayExpect: a saved trace matches its own replay, another seed's
// trace diverges at a named record, and a damaged file is bad input.
func TestReplayExpect(t *testing.T) {
	dir := t.TempDir()
	saved := filepath.Join(dir, "trace.txt")
	if _, errOut, code := simrun(t, nil, "replay", "--scenario", "early-kill", "--seed", "5", "--trace", saved); code != 0 {
		t.Fatalf("replay: exit %d: %s", code, errOut)
	}
	out, _, code := simrun(t, nil, "replay", "--scenario", "early-kill", "--seed", "5", "--expect", saved)
	if code != 0 || !strings.Contains(out, "trace matches") {
		t.Fatalf("the seed's own trace: exit %d, %q; want 0 and a match", code, out)
	}
	out, _, code = simrun(t, nil, "replay", "--scenario", "early-kill", "--seed", "6", "--expect", saved)
	if code != 3 || !strings.Contains(out, "DIVERGED from") || !strings.Contains(out, "first divergent step: record ") {
		t.Fatalf("another seed's trace: exit %d, %q; want 3 and the first divergent record", code, out)
	}
	data, err := os.ReadFile(saved)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	damaged := map[string]string{
		"empty":           "",
		"cut mid-line":    string(data[:len(data)/2]),
		"cut at a line":   strings.Join(lines[:len(lines)/2], ""),
		"garbage":         "not a trace\n",
		"time backwards":  "1s - go a\n0s a exit\n",
		"binary":          "0s - go \x00a\n",
		"json":            `{"results":[]}` + "\n",
		"bad time":        "0q - go a\n",
		"missing op":      "0s -\n",
		"uppercase op":    "0s - GO a\n",
		"non-canonical t": "0.0s - go a\n",
	}
	for name, content := range damaged {
		path := filepath.Join(dir, strings.ReplaceAll(name, " ", "-"))
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		out, errOut, code := simrun(t, nil, "replay", "--scenario", "early-kill", "--seed", "5", "--expect", path)
		if code != 2 || out != "" || strings.Count(strings.TrimSpace(errOut), "\n") != 0 || !strings.Contains(errOut, path) {
			t.Errorf("%s: got exit %d, stdout %q, stderr %q; want exit 2 and one line naming the file", name, code, out, errOut)
		}
	}
}

// TestTraceFileIsTheHashedTrace: sha256sum of a saved trace is the hash
// replay prints, and the parser accepts every family's real traces.
func TestTraceFileIsTheHashedTrace(t *testing.T) {
	for _, f := range plan.Families() {
		rp := run.ReplaySeed(f, 1, sim.RandomWalk{}, run.CheckOptions{})
		lines, err := parseTrace([]byte(rp.Trace))
		if err != nil {
			t.Fatalf("%s: a real trace does not parse: %v", f.Name, err)
		}
		if _, diverged := firstDivergence(lines, traceLines(rp.Trace)); diverged {
			t.Fatalf("%s: a parsed trace differs from itself", f.Name)
		}
	}
}

func TestFirstDivergence(t *testing.T) {
	a := []string{"0s - go x", "0s x yield", "1s x exit"}
	cases := []struct {
		got  []string
		line int
		ok   bool
	}{
		{a, 0, false},
		{[]string{"0s - go x", "0s x sleep 1s", "1s x exit"}, 2, true},
		{a[:2], 3, true},
		{append(append([]string{}, a...), "1s - halt"), 4, true},
		{nil, 1, true},
	}
	for _, c := range cases {
		d, ok := firstDivergence(a, c.got)
		if ok != c.ok || d.line != c.line {
			t.Errorf("%q: got record %d (diverged %v), want %d (%v)", c.got, d.line, ok, c.line, c.ok)
		}
	}
}

// TestRecheckNamesTheFirstDivergentStep: a failing seed whose re-run
// gives another trace is reported as nondeterminism at the first record
// that differs; one that reproduces is not.
func TestRecheckNamesTheFirstDivergentStep(t *testing.T) {
	failed := run.Result{Family: "swarm", Seed: 9, TraceSHA: "aaa",
		Violations: []history.Violation{{Oracle: "safety", Invariant: "S3"}}}
	first := "0s - go client/0\n0s client/0 lock podLock\n0s client/0 unlock podLock\n"
	for _, c := range []struct {
		sha, trace string
		want       int
	}{
		{"aaa", first, 0},
		{"bbb", "0s - go client/0\n0s client/0 yield\n0s client/0 unlock podLock\n", 1},
	} {
		rerun := func(run.Result, run.CheckOptions) run.Replayed {
			return run.Replayed{Result: run.Result{TraceSHA: c.sha}, Trace: c.trace}
		}
		notes := recheck(failed, first, rerun, run.CheckOptions{}, runFlags{strategy: "random"})
		out := strings.Join(notes, "")
		if len(notes) != c.want || strings.Contains(out, "NONDETERMINISM") != (c.want == 1) {
			t.Fatalf("re-run %s: got %d notes %q", c.sha, len(notes), out)
		}
		if c.want == 1 && !strings.Contains(out, "record 2\n    expected: 0s client/0 lock podLock\n    got:      0s client/0 yield") {
			t.Fatalf("the report does not name record 2 and both versions of it:\n%s", out)
		}
	}
}
