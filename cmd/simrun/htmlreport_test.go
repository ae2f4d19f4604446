package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
	if code != 2 || out != "" || !strings.HasPrefix(errOut, "simrun: cannot write /nonexistent/dir/r.html") {
		t.Errorf("got exit %d, stdout %q, stderr %q; want exit 2, one line, no run", code, out, errOut)
	}
}
