package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/regress"
	"github.com/podsim/podsim/run"
	"github.com/podsim/podsim/shrink"
)

// TestTimelineIsOnVirtualTime: each slice's ts is its record's virtual
// time in microseconds, its step the record number; one named track per
// goroutine of the trace; replay --out writes the same timeline beside
// the trace and the verdict.
func TestTimelineIsOnVirtualTime(t *testing.T) {
	dir := t.TempDir()
	tl, out := filepath.Join(dir, "timeline.json"), filepath.Join(dir, "out")
	if _, errOut, code := simrun(t, nil, "replay", "--scenario", "early-kill", "--seed", "9", "--trace",
		filepath.Join(dir, "trace.txt"), "--timeline", tl, "--out", out); code != 0 {
		t.Fatalf("replay: exit %d: %s", code, errOut)
	}
	data, _ := os.ReadFile(tl)
	var doc struct {
		TraceEvents []struct {
			Name, Ph string
			TS       float64
			TID      int
			Args     struct {
				Step        int
				VirtualTime string `json:"virtual_time"`
				Name        string
			}
		}
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	trace, _ := os.ReadFile(filepath.Join(dir, "trace.txt"))
	lines := traceLines(string(trace))
	tracks, slices, maxTS := map[int]string{}, 0, 0.0
	for _, e := range doc.TraceEvents {
		switch e.Ph {
		case "M":
			tracks[e.TID] = e.Args.Name
		case "X":
			slices++
			at, err := time.ParseDuration(e.Args.VirtualTime)
			rec := strings.SplitN(lines[e.Args.Step-1], " ", 3)
			if err != nil || e.TS != float64(at.Microseconds()) || rec[0] != e.Args.VirtualTime || rec[2] != e.Name ||
				tracks[e.TID] != rec[1] && !(rec[1] == "-" && tracks[e.TID] == "scheduler") {
				t.Fatalf("slice %+v does not match record %d: %q", e, e.Args.Step, lines[e.Args.Step-1])
			}
			maxTS = max(maxTS, e.TS)
		}
	}
	if slices < len(lines)/2 || len(tracks) < 5 || maxTS < 1e6 {
		t.Fatalf("%d slices for %d records on %d tracks, last at %vµs: want most records, a track per goroutine, seconds of virtual time",
			slices, len(lines), len(tracks), maxTS)
	}
	for _, name := range []string{"timeline.json", "trace.txt", "verdict.txt"} {
		got, err := os.ReadFile(filepath.Join(out, name))
		if err != nil || len(got) == 0 {
			t.Fatalf("replay --out did not write %s: %v", name, err)
		}
		if name == "timeline.json" && !bytes.Equal(got, data) {
			t.Fatalf("replay --out's timeline differs from --timeline's")
		}
	}
}

// TestExpectFailingSeedMatches: a failing seed replayed against its own
// trace exits 1 and says it fails as recorded (a divergence exits 3).
func TestExpectFailingSeedMatches(t *testing.T) {
	saved := filepath.Join(t.TempDir(), "trace.txt")
	args := []string{"replay", "--scenario", "kill-during-create", "--seed", "0", "--mutant", "B1"}
	if _, _, code := simrun(t, nil, append(args, "--trace", saved)...); code != 1 {
		t.Fatalf("the mutant's seed: exit %d, want 1", code)
	}
	out, _, code := simrun(t, nil, append(args, "--expect", saved)...)
	if code != 1 || !strings.Contains(out, "the seed fails, as recorded") {
		t.Fatalf("exit %d, %q; want 1 and a match of a failing seed", code, out)
	}
	out, _, code = simrun(t, nil, "replay", "--scenario", "kill-during-create", "--seed", "0", "--expect", saved)
	if code != 3 || !strings.Contains(out, "DIVERGED") {
		t.Fatalf("the correct code against the mutant's trace: exit %d, %q; want 3", code, out)
	}
}

// TestFileModesFollowUmask: output files are 0666 less the umask.
func TestFileModesFollowUmask(t *testing.T) {
	for _, c := range []struct {
		umask string
		want  os.FileMode
	}{{"022", 0o644}, {"002", 0o664}, {"077", 0o600}} {
		dir := t.TempDir()
		script := "umask " + c.umask + " && exec \"$0\" \"$@\""
		cmd := exec.Command("sh", "-c", script, binary, "run", "--scenario", "swarm", "--seeds", "2",
			"--json", filepath.Join(dir, "r.json"), "--junit", filepath.Join(dir, "j.xml"))
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		cmd = exec.Command("sh", "-c", script, binary, "replay", "--scenario", "swarm", "--seed", "1",
			"--trace", filepath.Join(dir, "t.txt"), "--out", filepath.Join(dir, "out"))
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		for _, name := range []string{"r.json", "j.xml", "t.txt", "out/timeline.json"} {
			fi, err := os.Stat(filepath.Join(dir, name))
			if err != nil || fi.Mode().Perm() != c.want {
				t.Errorf("umask %s: %s has mode %v (%v), want %v", c.umask, name, fi.Mode().Perm(), err, c.want)
			}
		}
	}
}

// TestEmptyShardAndVersion: a shard with no seeds says so, exits 0 and
// writes a valid empty results file; --version names the build; the run
// record carries it, and no per-seed line carries a time.
func TestEmptyShardAndVersion(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.json")
	out, _, code := simrun(t, nil, "run", "--shard", "3/4", "--seeds", "3", "--json", path)
	if code != 0 || !strings.Contains(out, "0 seeds in this shard") {
		t.Fatalf("empty shard: exit %d, %q", code, out)
	}
	data, _ := os.ReadFile(path)
	segs, err := parseResults(data)
	if err != nil || len(segs[0].results) != 0 || segs[0].end.Interrupted || segs[0].end.Planned != 0 {
		t.Fatalf("empty shard's file: %v, %+v", err, segs)
	}
	if segs[0].run.Flags["shard"] != "3/4" || segs[0].run.Version == "" || segs[0].run.Commit == "" {
		t.Fatalf("run record %+v lacks the flags or the build", segs[0].run)
	}
	out, _, code = simrun(t, nil, "--version")
	if code != 0 || !strings.HasPrefix(out, "simrun ") || !strings.Contains(out, "commit ") {
		t.Fatalf("--version: exit %d, %q", code, out)
	}
}

// TestShrinkHintNamesARealCommand: with a script outside the regression
// directory, the re-run hint copies it there first (the test runs only
// that directory's scripts).
func TestShrinkHintNamesARealCommand(t *testing.T) {
	s := shrink.Shrunk{Case: run.Case{Plan: plan.Plan{Family: "early-kill"}}}
	var b bytes.Buffer
	reportShrunk(&b, s, "/tmp/x/early-kill-seed12.txt", 10)
	want := "re-run: cp /tmp/x/early-kill-seed12.txt " + regress.RegressDir +
		"/ && go test ./regress -run 'TestRegressionScripts/early-kill-seed12'\n"
	if !strings.Contains(b.String(), want) {
		t.Fatalf("got:\n%s\nwant %q", b.String(), want)
	}
}

// TestResultsIndependentOfParallelism: the per-seed lines of --json are
// the same bytes, in the same order, at --parallel 1 and 8 (the reorder
// buffer writes in seed order), and carry no wall-clock time.
func TestResultsIndependentOfParallelism(t *testing.T) {
	dir := t.TempDir()
	var rows [2][]string
	for i, p := range []string{"1", "8"} {
		path := filepath.Join(dir, p+".json")
		if _, errOut, code := simrun(t, nil, "run", "--seeds", "30", "--parallel", p, "--force-parallel", "--json", path); code != 0 {
			t.Fatalf("--parallel %s: exit %d: %s", p, code, errOut)
		}
		data, _ := os.ReadFile(path)
		for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			if !strings.HasPrefix(line, `{"record":`) {
				rows[i] = append(rows[i], line)
			}
		}
	}
	if len(rows[0]) != 30*len(plan.Families()) || strings.Join(rows[0], "\n") != strings.Join(rows[1], "\n") {
		t.Fatalf("per-seed lines differ between --parallel 1 and 8 (%d and %d lines)", len(rows[0]), len(rows[1]))
	}
	// The run record's time keys; a coverage tuple may say "+restarted".
	if all := strings.Join(rows[0], ""); strings.Contains(all, `"started":`) || strings.Contains(all, `"finished":`) {
		t.Fatal("a per-seed line carries a time")
	}
}

// TestJSONToStdout: --json - makes stdout the results file (the summary
// goes to stderr), which merge - reads back.
func TestJSONToStdout(t *testing.T) {
	out, errOut, code := simrun(t, nil, "run", "--scenario", "swarm", "--seeds", "3", "--json", "-")
	segs, err := parseResults([]byte(out))
	if code != 0 || err != nil || len(segs[0].results) != 3 || !strings.Contains(errOut, "family") {
		t.Fatalf("exit %d, %v: stdout %q, stderr %q", code, err, out, errOut)
	}
	cmd := exec.Command(binary, "merge", "-", "--json", "-")
	cmd.Stdin = strings.NewReader(out + out)
	var merged, summary bytes.Buffer
	cmd.Stdout, cmd.Stderr = &merged, &summary
	if err := cmd.Run(); err != nil || !strings.Contains(summary.String(), "3 results from 1 files") {
		t.Fatalf("merge - --json -: %v, %s", err, summary.String())
	}
	if segs, err := parseResults(merged.Bytes()); err != nil || len(segs[0].results) != 3 {
		t.Fatalf("merged stdout: %v", err)
	}
}
