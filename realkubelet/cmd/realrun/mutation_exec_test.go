package main

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/podsim/podsim/internal/mutation"
	"github.com/podsim/podsim/realkubelet/cmd/realrun/mutreport"
)

// TestRunOneVerdicts: runOne's verdict from how the schema binary ends (a
// shell script standing in for it): a panic is a crash kill and a run past
// --hang a hang kill, each named by the run it was in; a signal realrun
// did not send leaves the mutant undecided (no verdict, not scored), an
// interrupt leaves it out.
func TestRunOneVerdicts(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("shell scripts")
	}
	dir := t.TempDir()
	script := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	r := &mutationRun{o: options{seeds: 1, start: 1, modes: "plain,hold", scenario: "all", hang: 300 * time.Millisecond}, outDir: dir}
	cases := []struct {
		bin, status, family, mode, reason string
		seed                              uint64
		cancel                            bool
	}{
		{script("crash", `echo "run swarm hold seed 2" >&2; echo "panic: boom" >&2; exit 2`), mutreport.Crash, "swarm", "hold", "panic: boom", 2, false},
		{script("killed", `echo "run swarm plain seed 3" >&2; kill -KILL $$`), mutreport.Undecided, "swarm", "plain", "ended from outside (signal: killed)", 3, false},
		{script("hang", `echo "run early-kill plain seed 4" >&2; exec sleep 60`), mutreport.Hang, "early-kill", "plain", "no run ended within 300ms", 4, false},
		{script("interrupted", `exec sleep 60`), "", "", "", "", 0, true},
	}
	for _, c := range cases {
		r.sd = side{bin: c.bin}
		ctx, cancel := context.WithCancel(context.Background())
		if c.cancel {
			time.AfterFunc(100*time.Millisecond, cancel)
		}
		m := mutreport.Mutant{Mutant: mutation.Mutant{Index: 7}}
		r.runOne(ctx, &m)
		cancel()
		if m.Status != c.status || m.Family != c.family || m.Mode != c.mode || m.Seed != c.seed || !strings.Contains(m.Reason, c.reason) {
			t.Errorf("%s: %q %s %s %d %q; want %q %s %s %d, a reason with %q", filepath.Base(c.bin), m.Status, m.Mode, m.Family, m.Seed, m.Reason,
				c.status, c.mode, c.family, c.seed, c.reason)
		}
	}
	var table strings.Builder
	op := mutation.Operators()[0]
	rep := mutreport.Report{Seeds: 1, Start: 1, Scored: 1, Killed: 1, Score: 1, Mutants: []mutreport.Mutant{
		{Mutant: mutation.Mutant{Index: 1, Operator: op}, Status: mutreport.Crash},
		{Mutant: mutation.Mutant{Index: 2, Operator: op}, Status: mutreport.Undecided}}}
	mutreport.Print(&table, rep, "30s")
	if !strings.Contains(table.String(), "UNDECIDED: 1,") || !strings.Contains(table.String(), "100.0%") {
		t.Errorf("report of a kill and an undecided mutant:\n%s", table.String())
	}
}
