package main

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/podsim/podsim/plan"
)

// TestGuidedFailureReplaysFromWhatSimrunPrints: a guided sweep of a mutant
// prints, for each failing run, a replay command with the run's input; the
// --json line carries the same input and the trace hash; replaying it
// fails with that very trace. Every line carries the run's coverage.
func TestGuidedFailureReplaysFromWhatSimrunPrints(t *testing.T) {
	results := filepath.Join(t.TempDir(), "g.json")
	out, errOut, code := simrun(t, nil, "run", "--strategy", "guided", "--scenario", "kill-during-create", "--seeds", "16",
		"--mutant", "B1", "--json", results)
	if code != 1 {
		t.Fatalf("exit %d, want 1 (B1 caught)\n%s%s", code, out, errOut)
	}
	var failing *jsonResult
	rs := readResults(t, results)
	for i, r := range rs {
		if len(r.Tuples) == 0 || len(r.Transitions) == 0 {
			t.Fatalf("run %d carries no coverage", r.Seed)
		}
		if r.Verdict == "fail" && failing == nil {
			failing = &rs[i]
		}
	}
	if failing == nil || !strings.HasPrefix(failing.Input, "g2:") {
		t.Fatalf("no failing line with an input: %+v", failing)
	}
	if !strings.Contains(out, "replay --scenario kill-during-create --input "+failing.Input+" --mutant B1") {
		t.Fatalf("the summary does not print the replay by input:\n%s", out)
	}
	rout, _, rcode := simrun(t, nil, "replay", "--scenario", "kill-during-create", "--input", failing.Input, "--mutant", "B1")
	if rcode != 1 || !strings.Contains(rout, "trace sha256 "+failing.TraceSHA256) {
		t.Fatalf("replay by input: exit %d, want 1 and trace %s\n%s", rcode, failing.TraceSHA256, rout)
	}
	script := filepath.Join(t.TempDir(), "b1.txt")
	sout, serr, scode := simrun(t, nil, "shrink", "--scenario", "kill-during-create", "--input", failing.Input, "--mutant", "B1",
		"--out", script, "--max-runs", "200")
	data, err := os.ReadFile(script)
	if scode != 1 || err != nil || !strings.Contains(string(data), "--input "+failing.Input) || !strings.Contains(string(data), "\nFAIL\n") {
		t.Fatalf("shrink by input: exit %d, script %v\n%s%s", scode, err, sout, serr)
	}
}

// TestGuidedSweepIsDeterministic: the same seed and corpus give the same
// results and the same saved corpus at --parallel 1 and 2; a second sweep
// resumes the corpus (its runs continue the first's numbering).
func TestGuidedSweepIsDeterministic(t *testing.T) {
	sweep := func(parallel string) ([]jsonResult, []byte, string) {
		dir := t.TempDir()
		corpus, results := filepath.Join(dir, "corpus"), filepath.Join(dir, "r.json")
		args := []string{"run", "--strategy", "guided", "--scenario", "update-storm", "--seeds", "24", "--start", "5",
			"--parallel", parallel, "--corpus", corpus, "--json", results}
		if out, errOut, code := simrun(t, nil, args...); code != 0 {
			t.Fatalf("exit %d\n%s%s", code, out, errOut)
		}
		data, err := os.ReadFile(filepath.Join(corpus, "update-storm.corpus"))
		if err != nil {
			t.Fatal(err)
		}
		return readResults(t, results), data, corpus
	}
	r1, c1, corpus := sweep("1")
	r2, c2, _ := sweep("2")
	if !reflect.DeepEqual(r1, r2) || string(c1) != string(c2) {
		t.Fatal("the same guided sweep differs at --parallel 1 and 2")
	}
	results := filepath.Join(t.TempDir(), "again.json")
	if out, errOut, code := simrun(t, nil, "run", "--strategy", "guided", "--scenario", "update-storm", "--seeds", "8",
		"--start", "5", "--corpus", corpus, "--json", results); code != 0 {
		t.Fatalf("resume: exit %d\n%s%s", code, out, errOut)
	}
	if again := readResults(t, results); again[0].Seed != 24 {
		t.Fatalf("the resumed sweep's first run is %d, want 24", again[0].Seed)
	}
}

// TestGuidedSweepOfAllFamiliesIsDeterministic: a guided sweep of every
// family (its loops side by side), with failures (B1) to recheck, writes
// the same stdout, the same --json result lines, the same --junit cases
// and the same corpora at --parallel 1, 2 and 3, and at GOMAXPROCS 1 and 2.
func TestGuidedSweepOfAllFamiliesIsDeterministic(t *testing.T) {
	type output struct{ stdout, json, junit, corpus string }
	sweep := func(parallel, procs string) output {
		dir := t.TempDir()
		corpus := filepath.Join(dir, "corpus")
		out, errOut, code := simrun(t, []string{"GOMAXPROCS=" + procs}, "run", "--strategy", "guided", "--seeds", "8",
			"--start", "11", "--mutant", "B1", "--no-timing", "--parallel", parallel, "--corpus", corpus,
			"--json", filepath.Join(dir, "r.json"), "--junit", filepath.Join(dir, "r.xml"))
		if code != 1 || !strings.Contains(out, "FAIL ") {
			t.Fatalf("exit %d, want 1 (B1 caught)\n%s%s", code, out, errOut)
		}
		o := output{stdout: out}
		data, err := os.ReadFile(filepath.Join(dir, "r.json"))
		lines := strings.Split(strings.TrimSpace(string(data)), "\n")
		if err != nil || len(lines) != 2+8*len(plan.Families()) {
			t.Fatalf("--json: %v, %d lines", err, len(lines))
		}
		o.json = strings.Join(lines[1:len(lines)-1], "\n") // the run and end records carry the time and flags
		data, _ = os.ReadFile(filepath.Join(dir, "r.xml"))
		for _, l := range strings.Split(string(data), "\n") {
			if !strings.Contains(l, "<property ") {
				o.junit += regexp.MustCompile(` time="[^"]*"`).ReplaceAllString(l, "") + "\n"
			}
		}
		files, _ := filepath.Glob(filepath.Join(corpus, "*.corpus"))
		for _, f := range files {
			data, _ := os.ReadFile(f)
			o.corpus += filepath.Base(f) + "\n" + string(data)
		}
		if len(files) != len(plan.Families()) {
			t.Fatalf("%d corpus files, want one per family", len(files))
		}
		return o
	}
	want := sweep("1", "2")
	for _, c := range [][2]string{{"2", "2"}, {"3", "2"}, {"2", "1"}} {
		if got := sweep(c[0], c[1]); got != want {
			d, _ := firstDivergence(strings.Split(want.stdout, "\n"), strings.Split(got.stdout, "\n"))
			t.Fatalf("--parallel %s at GOMAXPROCS %s: stdout equal %v, --json %v, --junit %v, corpus %v; stdout's %v",
				c[0], c[1], got.stdout == want.stdout, got.json == want.json, got.junit == want.junit, got.corpus == want.corpus, d)
		}
	}
}

// TestRerunCorpusChecksNewCode: a corpus grown on the correct code, run
// again with --rerun-corpus on changed code (catalogued mutant G1), fails
// among its first runs, the corpus's own inputs: each failing line's input
// is one the saved corpus keeps.
func TestRerunCorpusChecksNewCode(t *testing.T) {
	corpus := filepath.Join(t.TempDir(), "corpus")
	if out, errOut, code := simrun(t, nil, "run", "--strategy", "guided", "--scenario", "grace-shortening", "--seeds", "64",
		"--start", "3", "--corpus", corpus); code != 0 {
		t.Fatalf("grow: exit %d\n%s%s", code, out, errOut)
	}
	data, err := os.ReadFile(filepath.Join(corpus, "grace-shortening.corpus"))
	if err != nil {
		t.Fatal(err)
	}
	kept := strings.Count(string(data), "\nentry ")
	results := filepath.Join(t.TempDir(), "r.json")
	out, errOut, code := simrun(t, nil, "run", "--strategy", "guided", "--scenario", "grace-shortening", "--seeds", fmt.Sprint(kept),
		"--start", "3", "--corpus", corpus, "--rerun-corpus", "--mutant", "G1", "--json", results)
	if code != 1 {
		t.Fatalf("rerun on G1: exit %d, want 1\n%s%s", code, out, errOut)
	}
	for _, r := range readResults(t, results) {
		if r.Verdict == "fail" {
			if r.Seed < 64 || !strings.Contains(string(data), " "+r.Input+"\n") {
				t.Fatalf("failing run %d's input is not one of the corpus's %d: %s", r.Seed, kept, r.Input)
			}
			return
		}
	}
	t.Fatal("no failing line in the results")
}
