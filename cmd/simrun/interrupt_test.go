package main

import (
	"bufio"
	"bytes"
	"encoding/xml"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/podsim/podsim/cmd/simrun/internal/junit"
	"github.com/podsim/podsim/run"
)

// sweepCmd starts a big sweep writing JSON and JUnit into dir, and
// returns it with its stderr lines.
func sweepCmd(t *testing.T, dir string) (*exec.Cmd, *bytes.Buffer, *bufio.Scanner, io.Reader) {
	t.Helper()
	cmd := exec.Command(binary, "run", "--scenario", "swarm", "--seeds", "1000000",
		"--json", filepath.Join(dir, "partial.json"), "--junit", filepath.Join(dir, "partial.xml"))
	var out bytes.Buffer
	cmd.Stdout = &out
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, &out, bufio.NewScanner(stderr), stderr
}

// waitFirstSeed reads stderr up to the first progress line: off a
// terminal it is printed when the first seed is done, so a signal after
// it interrupts a sweep that has results, however loaded the machine is.
func waitFirstSeed(t *testing.T, lines *bufio.Scanner) {
	t.Helper()
	if !lines.Scan() || !strings.HasPrefix(lines.Text(), "1/1000000 seeds") {
		t.Fatalf("first stderr line %q, want the first seed's progress line", lines.Text())
	}
}

// checkPartialFiles: the JSON is a valid results file of an interrupted
// run with some results and not all, the JUnit file is XML with as many
// cases, and no temporary file is left.
func checkPartialFiles(t *testing.T, dir string, wantSome bool) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "partial.json"))
	if err != nil {
		t.Fatal(err)
	}
	segs, err := parseResults(data)
	if err != nil {
		t.Fatalf("partial results file: %v", err)
	}
	n := len(segs[0].results)
	if !segs[0].end.Interrupted || n >= 1000000 || (wantSome && n == 0) {
		t.Fatalf("got %d results, interrupted %v; want some but not all, interrupted", n, segs[0].end.Interrupted)
	}
	var doc junit.Suites
	xmlData, _ := os.ReadFile(filepath.Join(dir, "partial.xml"))
	if err := xml.Unmarshal(xmlData, &doc); err != nil || doc.Tests != n {
		t.Fatalf("JUnit file: %v, %d tests; want XML with %d", err, doc.Tests, n)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".*")); len(left) != 0 {
		t.Fatalf("temporary files left: %v", left)
	}
}

// TestInterruptWritesPartialResults: SIGINT in the middle of a sweep stops
// it, reports the seeds that ran, writes them (valid files) and exits 1,
// not 0: not every check ran.
func TestInterruptWritesPartialResults(t *testing.T) {
	dir := t.TempDir()
	cmd, out, lines, stderr := sweepCmd(t, dir)
	waitFirstSeed(t, lines)
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	rest, _ := io.ReadAll(stderr)
	err := cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Fatalf("got %v, want exit 1\nstdout: %s\nstderr: %s", err, out, rest)
	}
	if !strings.Contains(out.String(), "INTERRUPTED after") {
		t.Fatalf("no interruption notice in %q", out.String())
	}
	checkPartialFiles(t, dir, true)
}

// TestInterruptTwice: a second signal ends the files (valid, marked
// interrupted, no temporary file left) and exits 130 at once. It runs the
// real handler in this process, signalling itself, with exit stubbed: a
// binary's seeds finish too fast after the first signal to be sure a
// second one arrives before the sweep ends by itself.
func TestInterruptTwice(t *testing.T) {
	dir := t.TempDir()
	in := newInterrupts(io.Discard)
	defer in.done()
	exited := make(chan int, 1)
	in.exit = func(code int) { exited <- code }
	out, err := openSink(filepath.Join(dir, "partial.json"), filepath.Join(dir, "partial.xml"), "random", "random", nil,
		runMeta("run", nil, nil), 1000000)
	if err != nil {
		t.Fatal(err)
	}
	in.onAbort(func() { out.finish(true) })
	for seed := uint64(0); seed < 3; seed++ {
		out.add(run.Result{Family: "swarm", Seed: seed, TraceSHA: strings.Repeat("a", 64)}, time.Millisecond)
	}
	if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	<-in.ctx.Done()
	if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case code := <-exited:
		if code != 130 {
			t.Fatalf("exit %d, want 130", code)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no exit after the second signal")
	}
	out.add(run.Result{Family: "swarm", Seed: 3}, 0) // after the abort: ignored
	checkPartialFiles(t, dir, true)
}

// TestInterruptTwiceBinary: two signals back to back to the binary; the
// second may arrive after the sweep ended by itself (exit 1) or not (130):
// the files are valid either way.
func TestInterruptTwiceBinary(t *testing.T) {
	dir := t.TempDir()
	cmd, _, lines, stderr := sweepCmd(t, dir)
	waitFirstSeed(t, lines)
	_ = cmd.Process.Signal(syscall.SIGINT)
	_ = cmd.Process.Signal(syscall.SIGINT)
	rest, _ := io.ReadAll(stderr)
	if ee, ok := cmd.Wait().(*exec.ExitError); !ok || (ee.ExitCode() != 130 && ee.ExitCode() != 1) {
		t.Fatalf("got %v, want exit 130 or 1\nstderr: %s", ee, rest)
	}
	checkPartialFiles(t, dir, true)
}

// TestInterruptEarly: SIGINT half a second after the start (the handler is
// installed before any work) still leaves valid files, whatever has run.
func TestInterruptEarly(t *testing.T) {
	dir := t.TempDir()
	cmd, _, _, stderr := sweepCmd(t, dir)
	time.Sleep(500 * time.Millisecond)
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	rest, _ := io.ReadAll(stderr)
	if ee, ok := cmd.Wait().(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Fatalf("got %v, want exit 1\nstderr: %s", ee, rest)
	}
	checkPartialFiles(t, dir, false)
}
