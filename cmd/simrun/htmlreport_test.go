package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/podsim/podsim/report"
)

// failingSeed is a seed that fails with its mutant, linearizability
// included (so porcupine has a page): simrun run --mutant B2 --scenario
// update-storm --seeds 50 lists it.
var failingSeed = []string{"--scenario", "update-storm", "--seed", "8", "--mutant", "B2"}

// replayReportPage runs replay --report and returns the page.
func replayReportPage(t *testing.T, dir string, extra ...string) string {
	t.Helper()
	path := filepath.Join(dir, "report.html")
	args := append(append([]string{"replay"}, failingSeed...), append([]string{"--report", path}, extra...)...)
	out, errOut, code := simrun(t, nil, args...)
	if code != 1 || !strings.Contains(out, "report: "+path) {
		t.Fatalf("replay --report: exit %d, want 1 and the report's path\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestReplayReport checks that the page of a failing seed holds what a
// reader needs: the verdict, the violation, the shrunk story, the timeline
// with the goroutine concerned, and porcupine's page.
func TestReplayReport(t *testing.T) {
	page := replayReportPage(t, t.TempDir())
	for _, want := range []string{
		">FAIL<", "update-storm seed 8", // the verdict
		"First failure at <b>3s</b> of virtual time, in goroutine <b class=\"mono\">worker/a</b>",
		"invariant syncpod-cancelled-once-requested broken for pod a", // the first violation
		"SyncPod began at 3s after kill at 3s requested termination (S3)",
		"go run ./cmd/simrun replay --scenario update-storm --seed 8 --strategy random --mutant B2",
		"Shrunk from 16 actions", "plan update-storm: 1 actions, 1 clients", // the shrunk story
		`<g class="lane hl"><rect class="band"`, `>worker/a</text>`, "around the first violation", // the timeline
		`<iframe class="porcupine"`, "jump-link", "linearization-invalid", // porcupine's page, escaped in srcdoc
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the report lacks %q", want)
		}
	}
	if strings.Contains(page, "<script") {
		t.Error("the report has a script outside porcupine's frame")
	}
}

// TestReportIsAFunctionOfTheSeed: replay --report twice, replay --out and
// run --out write the same page for one seed.
func TestReportIsAFunctionOfTheSeed(t *testing.T) {
	dir := t.TempDir()
	first := replayReportPage(t, mkdir(t, dir, "a"))
	pages := map[string]string{"replay --report again": replayReportPage(t, mkdir(t, dir, "b"))}
	if _, _, code := simrun(t, nil, append([]string{"replay", "--out", mkdir(t, dir, "c")}, failingSeed...)...); code != 1 {
		t.Fatalf("replay --out: exit %d, want 1", code)
	}
	if _, _, code := simrun(t, nil, append([]string{"run", "--out", mkdir(t, dir, "d")}, failingSeed...)...); code != 1 {
		t.Fatalf("run --out: exit %d, want 1", code)
	}
	for name, path := range map[string]string{"replay --out": filepath.Join(dir, "c", ReportFile),
		"run --out": filepath.Join(dir, "d", "update-storm", "seed-8", ReportFile)} {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%s wrote no report: %v", name, err)
		}
		pages[name] = string(data)
	}
	for name, page := range pages {
		if page != first {
			t.Errorf("%s wrote a page that differs from replay --report's", name)
		}
	}
}

func mkdir(t *testing.T, parent, name string) string {
	t.Helper()
	dir := filepath.Join(parent, name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestReportOfAPassingSeed: --report on a seed that passes still writes a
// page (green, no violations); --out writes none for it.
func TestReportOfAPassingSeed(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "pass.html")
	out, errOut, code := simrun(t, nil, "replay", "--scenario", "update-storm", "--seed", "8", "--report", path,
		"--out", dir)
	if code != 0 {
		t.Fatalf("exit %d, want 0\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(data, []byte(">PASS<")) || !bytes.Contains(data, []byte("No oracle reported a violation.")) {
		t.Error("the page of a passing seed does not say it passes")
	}
	if _, err := os.Stat(filepath.Join(dir, ReportFile)); err == nil {
		t.Error("--out wrote a report for a passing seed")
	}
}

// TestReportPathCheckedFirst: an unwritable --report is one line and exit
// 2, before the run.
func TestReportPathCheckedFirst(t *testing.T) {
	out, errOut, code := simrun(t, nil, append([]string{"replay", "--report", "/nonexistent/dir/r.html"}, failingSeed...)...)
	if code != 2 || out != "" || !strings.HasPrefix(errOut, "simrun: cannot write --report /nonexistent/dir/r.html") {
		t.Errorf("got exit %d, stdout %q, stderr %q; want exit 2, one line, no run", code, out, errOut)
	}
}

// TestTraceTimeline reads lanes, spans and points off a canonical trace.
func TestTraceTimeline(t *testing.T) {
	trace := strings.Join([]string{
		"0s - go client/0",
		"0s client/0 lock podLock",
		"0s client/0 go worker/a",
		"0s worker/a wait-block updates/a",
		"0s client/0 sleep 1s",
		"1s - advance clock",
		"1s - wake client/0",
		"1s client/0 notify updates/a",
		"1s worker/a wait updates/a true",
		"1s worker/a event-block cancel/a#1 264ms",
		"1.264s worker/a exit",
		"1.264s client/0 event-block done forever",
	}, "\n") + "\n"
	tl := traceTimeline(trace, 5*time.Second)
	got := fmt.Sprintf("%+v", tl.Lanes)
	want := "[{Name:client/0 Born:0s Died:0s Exited:false Highlight:false " +
		"Spans:[{Kind:1 Start:0s End:1s Label:sleep 1s} {Kind:2 Start:1.264s End:5s Label:event-block done forever (until the end of the run)}] " +
		"Points:[{At:0s Label:3 steps\nlock podLock\ngo worker/a\nsleep 1s} {At:1s Label:notify updates/a} {At:1.264s Label:event-block done forever}]} " +
		"{Name:worker/a Born:0s Died:1.264s Exited:true Highlight:false " +
		"Spans:[{Kind:2 Start:0s End:1s Label:wait-block updates/a} {Kind:0 Start:1s End:1.264s Label:event-block cancel/a#1 264ms}] " +
		"Points:[{At:0s Label:wait-block updates/a} {At:1s Label:2 steps\nwait updates/a true\nevent-block cancel/a#1 264ms} {At:1.264s Label:exit}]}]"
	if got != want {
		t.Errorf("lanes:\n%s\nwant\n%s", got, want)
	}
}

func TestLaneOf(t *testing.T) {
	tl := report.Timeline{Lanes: []report.Lane{{Name: "client/0"}, {Name: "worker/a"}, {Name: "worker/ab"}}}
	for msg, want := range map[string]string{
		`in effect order "worker/ab SyncPod begin update v9" (event 222 at 3s) fails`: "worker/ab",
		"pod a (TR): SyncPod began at 3s after kill at 3s":                            "worker/a",
		"invariant x broken for pod a: SyncPod in flight":                             "worker/a",
		"pod zz (TR): never ran":                                                      "",
		"deadlock: every goroutine is blocked":                                        "",
	} {
		if got := laneOf(msg, tl); got != want {
			t.Errorf("laneOf(%q) = %q, want %q", msg, got, want)
		}
	}
}

func TestTimelineWindows(t *testing.T) {
	s := time.Second
	if got := fmt.Sprint(timelineWindows(249*s, 3*s)); got != "[{around the first violation 0s 12s} {whole run 0s 4m9s}]" {
		t.Errorf("a long run: %s", got)
	}
	if got := fmt.Sprint(timelineWindows(200*s, 100*s)); got != "[{around the first violation 1m32s 1m42s} {whole run 0s 3m20s}]" {
		t.Errorf("a violation late in the run: %s", got)
	}
	if got := fmt.Sprint(timelineWindows(5*s, 3*s)); got != "[{whole run 0s 5s}]" {
		t.Errorf("a short run: %s", got)
	}
}
