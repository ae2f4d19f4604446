package main

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/podsim/podsim/cmd/simrun/internal/junit"
	"github.com/podsim/podsim/internal/gobin"
	"github.com/podsim/podsim/plan"
)

// binary is simrun, built once for every CLI test: the Go build cache's
// copy, which deploy's test (and `go run ./cmd/simrun`) use too
// (internal/gobin).
var binary string

func TestMain(m *testing.M) {
	var err error
	if binary, err = gobin.Built("."); err != nil {
		panic(fmt.Sprintf("building simrun: %v", err))
	}
	os.Exit(m.Run())
}

// simrun runs the binary and returns stdout, stderr and the exit code.
func simrun(t *testing.T, env []string, args ...string) (string, string, int) {
	t.Helper()
	return runBinary(t, binary, env, args...)
}

// runBinary runs the executable bin and returns stdout, stderr and the
// exit code. Under -short (make race) it skips the test instead: bin is
// built without -race (gobin, go build), so the race detector sees nothing
// of what it runs, and make test already ran the same test on the same
// binary.
func runBinary(t *testing.T, bin string, env []string, args ...string) (string, string, int) {
	t.Helper()
	if testing.Short() {
		t.Skip("-short (make race): simrun runs as a child process built without -race, so -race adds nothing; make test runs it")
	}
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errOut.String(), code
}

func TestExitCodesAndBadInput(t *testing.T) {
	cases := []struct {
		args []string
		code int
		want string // in stdout+stderr
	}{
		{[]string{"run", "--seeds", "50"}, 0, "swarm"},
		{[]string{"list"}, 0, "families:"},
		{[]string{"replay", "--scenario", "swarm", "--seed", "3"}, 0, "trace sha256"},
		{[]string{"run", "--seed", "x"}, 2, `malformed seed "x"`},
		{[]string{"run", "--seed", "-1"}, 2, "malformed seed"},
		{[]string{"run", "--seed", "18446744073709551616"}, 2, "malformed seed"},
		{[]string{"run", "--scenario", "nope"}, 2, `unknown scenario "nope"`},
		{[]string{"run", "--strategy", "dfs"}, 2, `unknown strategy "dfs"`},
		{[]string{"run", "--shard", "4/4"}, 2, "malformed shard"},
		{[]string{"run", "--shard", "1-4"}, 2, "malformed shard"},
		{[]string{"run", "--seeds", "0"}, 2, "--seeds 0"},
		{[]string{"run", "--parallel", "0"}, 2, "--parallel 0"},
		{[]string{"run", "--bogus"}, 2, "unknown flag: --bogus"},
		{[]string{"bogus"}, 2, `unknown command "bogus"`},
		{[]string{"replay", "--seed", "3"}, 2, "replay needs --scenario and --seed"},
		{[]string{"run", "--seeds", "5", "--json", "/nonexistent/dir/out.json"}, 2, "cannot write"},
		{[]string{"run", "--seeds", "5", "--out", "/proc/podsim-out"}, 2, "cannot write"},
		{[]string{"run", "--seeds", "5", "--junit", "/nonexistent/dir/j.xml"}, 2, "cannot write"},
	}
	for _, c := range cases {
		out, errOut, code := simrun(t, nil, c.args...)
		if code != c.code {
			t.Errorf("%v: got exit %d, want %d\nstdout: %s\nstderr: %s", c.args, code, c.code, out, errOut)
		}
		if !strings.Contains(out+errOut, c.want) {
			t.Errorf("%v: output lacks %q\nstdout: %s\nstderr: %s", c.args, c.want, out, errOut)
		}
		if c.code == 2 && (out != "" || strings.Count(strings.TrimSpace(errOut), "\n") != 0) {
			t.Errorf("%v: bad input must give one line on stderr and nothing else; got stdout %q stderr %q", c.args, out, errOut)
		}
	}
}

// TestOutputIndependentOfParallelism: results are sorted by seed and every
// run is deterministic, so stdout is the same at any --parallel.
// TestOutputIndependentOfParallelism: with --no-timing (no seeds/s
// column, the one wall-clock figure), stdout is a function of the results
// alone, the same at any --parallel; without it the column is there.
// 50 seeds of every family (1,000 jobs; it was 300) still prove it: the
// jobs are 15 times the reorder window at --parallel 4 (64), the families'
// costs differ up to tenfold, so results complete out of order and wait
// in the window throughout, and every table row and coverage-mark line is
// printed from non-zero counts.
func TestOutputIndependentOfParallelism(t *testing.T) {
	one, _, _ := simrun(t, nil, "run", "--seeds", "50", "--parallel", "1", "--no-timing")
	four, _, _ := simrun(t, nil, "run", "--seeds", "50", "--parallel", "4", "--no-timing")
	if one != four {
		t.Fatalf("--parallel 1 and 4 printed different output:\n%s\n---\n%s", one, four)
	}
	if strings.Contains(one, "seeds/s") {
		t.Errorf("--no-timing: got a seeds/s column:\n%s", one)
	}
	timed, _, _ := simrun(t, nil, "run", "--seeds", "20", "--scenario", "early-kill")
	if !strings.Contains(timed, "seeds/s/core") {
		t.Errorf("no seeds/s/core column by default:\n%s", timed)
	}
}

func readResults(t *testing.T, path string) []jsonResult {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	segs, err := parseResults(data)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var out []jsonResult
	for _, s := range segs {
		out = append(out, s.results...)
	}
	return out
}

// TestShardsUnionIsTheWholeRun: the N shards together are exactly the
// unsharded run, seed for seed and hash for hash.
func TestShardsUnionIsTheWholeRun(t *testing.T) {
	dir := t.TempDir()
	whole := filepath.Join(dir, "whole.json")
	// 13 seeds (it was 97): like 97 no multiple of 3, so the shards hold
	// 5, 4 and 4 seeds of each family and an off-by-one at the uneven
	// end shows, as does a shard ignoring --start; more seeds repeat the
	// same arithmetic.
	simrun(t, nil, "run", "--seeds", "13", "--start", "1000", "--json", whole)
	var union []jsonResult
	for k := 0; k < 3; k++ {
		path := filepath.Join(dir, fmt.Sprintf("shard%d.json", k))
		simrun(t, nil, "run", "--seeds", "13", "--start", "1000", "--shard", fmt.Sprintf("%d/3", k), "--json", path)
		union = append(union, readResults(t, path)...)
	}
	bySeed := func(a, b jsonResult) int {
		if c := strings.Compare(a.Scenario, b.Scenario); c != 0 {
			return c
		}
		return int(a.Seed) - int(b.Seed)
	}
	want := readResults(t, whole)
	slices.SortFunc(union, bySeed)
	slices.SortFunc(want, bySeed)
	if len(want) != 13*len(plan.Families()) || !slices.EqualFunc(union, want, func(a, b jsonResult) bool { return reflect.DeepEqual(a, b) }) {
		t.Fatalf("union of 3 shards (%d results) differs from the whole run (%d results)", len(union), len(want))
	}
}

// TestReplayHashIsStable: the same seed gives the same trace hash twice and
// at GOMAXPROCS 1 and 2.
func TestReplayHashIsStable(t *testing.T) {
	var hashes []string
	for _, env := range [][]string{{"GOMAXPROCS=1"}, {"GOMAXPROCS=2"}, {"GOMAXPROCS=2"}} {
		out, _, code := simrun(t, env, "replay", "--scenario", "swarm", "--seed", "42")
		if code != 0 {
			t.Fatalf("replay failed: %s", out)
		}
		hashes = append(hashes, strings.Fields(out[strings.Index(out, "trace sha256"):])[2])
	}
	if hashes[0] != hashes[1] || hashes[1] != hashes[2] {
		t.Fatalf("trace hashes differ: %v", hashes)
	}
}

// TestJUnitReport: one suite per family, one case per seed, well-formed.
func TestJUnitReport(t *testing.T) {
	path := filepath.Join(t.TempDir(), "junit.xml")
	if _, errOut, code := simrun(t, nil, "run", "--seeds", "4", "--junit", path); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc junit.Suites
	if err := xml.Unmarshal(data, &doc); err != nil {
		t.Fatalf("not XML: %v", err)
	}
	if len(doc.Suites) != len(plan.Families()) {
		t.Fatalf("got %d suites, want one per family (%d)", len(doc.Suites), len(plan.Families()))
	}
	for _, s := range doc.Suites {
		if s.Tests != 4 || len(s.Cases) != 4 || s.Failures != 0 {
			t.Errorf("suite %s: got %d tests, %d cases, %d failures; want 4, 4, 0", s.Name, s.Tests, len(s.Cases), s.Failures)
		}
	}
}

// TestReplayWritesTraceAndTimeline: replay's files are the run's trace and
// a Chrome trace-event JSON timeline, the same bytes on every replay.
func TestReplayWritesTraceAndTimeline(t *testing.T) {
	dir := t.TempDir()
	read := func(name string) string {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	var traces, timelines []string
	for i := 0; i < 2; i++ {
		_, errOut, code := simrun(t, nil, "replay", "--scenario", "early-kill", "--seed", "9",
			"--trace", filepath.Join(dir, "trace.txt"), "--timeline", filepath.Join(dir, "timeline.json"))
		if code != 0 {
			t.Fatalf("replay: exit %d: %s", code, errOut)
		}
		traces, timelines = append(traces, read("trace.txt")), append(timelines, read("timeline.json"))
	}
	if traces[0] != traces[1] || timelines[0] != timelines[1] || !strings.Contains(traces[0], "worker/a") {
		t.Fatal("replay files differ between two replays, or the trace names no worker")
	}
	var doc struct{ TraceEvents []map[string]any }
	if err := json.Unmarshal([]byte(timelines[0]), &doc); err != nil || len(doc.TraceEvents) == 0 {
		t.Fatalf("timeline is not trace-event JSON: %v", err)
	}
}
