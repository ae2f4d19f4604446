package main

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestInterruptWritesPartialResults: SIGINT in the middle of a sweep stops
// it, reports the seeds that ran, writes them (a valid results file) and
// exits 1, not 0: not every check ran.
func TestInterruptWritesPartialResults(t *testing.T) {
	path := filepath.Join(t.TempDir(), "partial.json")
	cmd := exec.Command(binary, "run", "--scenario", "swarm", "--seeds", "1000000", "--json", path)
	var out, errOut bytes.Buffer
	cmd.Stdout = &out
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Off a terminal, progress prints a line when the first seed is done:
	// interrupt after it, however loaded the machine is.
	lines := bufio.NewScanner(stderr)
	if !lines.Scan() || !strings.HasPrefix(lines.Text(), "1/1000000 seeds") {
		t.Fatalf("first stderr line %q, want the first seed's progress line", lines.Text())
	}
	errOut.WriteString(lines.Text() + "\n")
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(&errOut, stderr)
	err = cmd.Wait()
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.ExitCode() != 1 {
		t.Fatalf("got %v, want exit 1\nstdout: %s\nstderr: %s", err, out.String(), errOut.String())
	}
	if !strings.Contains(out.String(), "INTERRUPTED after") {
		t.Fatalf("no interruption notice in %q", out.String())
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	results, err := parseResults(data)
	if err != nil {
		t.Fatalf("partial results file: %v", err)
	}
	if len(results) == 0 || len(results) >= 1000000 {
		t.Fatalf("got %d results, want some but not all", len(results))
	}
}
