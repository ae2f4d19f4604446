package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A run with the fault points armed that fails with G4 only armed: seed 30
// of force-delete-failing-terminate (unarmed it passes), and the guided
// loop's run 0 of that family, a fresh run (seed 0's streams), likewise.
var armedOnlySeed = []string{"--scenario", "force-delete-failing-terminate", "--seed", "30", "--mutant", "G4"}

// TestShrinkSeedWithFaultPoints: shrink --fault-points shrinks a failure
// found with the points armed into a script that records them (the
// fault-points directive, the points on) and its command; without the flag
// the same seed passes, so there is nothing to shrink.
func TestShrinkSeedWithFaultPoints(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "fp.txt")
	out, errOut, code := simrun(t, nil, append([]string{"shrink", "--fault-points", "--out", script}, armedOnlySeed...)...)
	data, err := os.ReadFile(script)
	if code != 1 || err != nil {
		t.Fatalf("shrink --fault-points: exit %d (want 1), %v\n%s%s", code, err, out, errOut)
	}
	for _, want := range []string{"# command: simrun shrink --scenario force-delete-failing-terminate --seed 30 --strategy random --mutant G4 --fault-points\n",
		"\nfault-points\n----\n", "fault points on: slow-sync-under-kill", "run mutant=G4\n----\nFAIL\n"} {
		if !strings.Contains(string(data), want) {
			t.Errorf("the script lacks %q:\n%s", want, data)
		}
	}
	out, _, code = simrun(t, nil, append([]string{"shrink", "--out", filepath.Join(dir, "plain.txt")}, armedOnlySeed...)...)
	if code != 0 || !strings.Contains(out, "nothing to shrink") {
		t.Fatalf("shrink without --fault-points: exit %d, want 0 (the unarmed seed passes)\n%s", code, out)
	}
}

// TestFaultPointGuidedRunReplaysShrinksAndReports: a guided sweep with the
// fault points armed prints a failing run's replay command with
// --fault-points; replay --input with --report writes the run's report
// (its input, the points on, the command), the same page replay --out and
// run --out write for it; shrink --input --fault-points saves it as a
// script that records the points. Without --fault-points the input is
// another run: it passes, and shrink finds nothing to shrink.
func TestFaultPointGuidedRunReplaysShrinksAndReports(t *testing.T) {
	dir := t.TempDir()
	results := filepath.Join(dir, "g.json")
	fam := "force-delete-failing-terminate"
	out, errOut, code := simrun(t, nil, "run", "--strategy", "guided", "--fault-points", "--scenario", fam, "--seeds", "8",
		"--mutant", "G4", "--json", results, "--out", mkdir(t, dir, "run"))
	if code != 1 {
		t.Fatalf("guided sweep: exit %d, want 1\n%s%s", code, out, errOut)
	}
	first := readResults(t, results)[0]
	if first.Verdict != "fail" || !strings.Contains(out, "--input "+first.Input+" --mutant G4 --fault-points\n") {
		t.Fatalf("run 0 does not fail with a replay command carrying --fault-points: %+v\n%s", first, out)
	}
	input := []string{"--scenario", fam, "--input", first.Input, "--mutant", "G4"}
	report := filepath.Join(dir, "r.html")
	out, errOut, code = simrun(t, nil, append([]string{"replay", "--fault-points", "--report", report, "--out", mkdir(t, dir, "replay")},
		input...)...)
	page, err := os.ReadFile(report)
	if code != 1 || err != nil || !strings.Contains(out, "trace sha256 "+first.TraceSHA256) || !strings.Contains(out, "report: "+report) {
		t.Fatalf("replay --input --report: exit %d (want 1), %v\n%s%s", code, err, out, errOut)
	}
	for _, want := range []string{">FAIL<", "guided input <b class=\"mono token\">" + first.Input + "</b>",
		"replay --scenario " + fam + " --input " + first.Input + " --mutant G4 --fault-points",
		"fault points on", "slow-sync-under-kill", "Shrunk from ", "--fault-points saves the shrunk run", "The timeline and porcupine below are of the run itself"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("the report lacks %q", want)
		}
	}
	for name, path := range map[string]string{"replay --out": filepath.Join(dir, "replay", ReportFile),
		"run --out": filepath.Join(dir, "run", fam, "seed-0", ReportFile)} {
		if data, err := os.ReadFile(path); err != nil || string(data) != string(page) {
			t.Errorf("%s wrote no report or another page than replay --report's (%v)", name, err)
		}
	}
	script := filepath.Join(dir, "fp.txt")
	out, errOut, code = simrun(t, nil, append([]string{"shrink", "--fault-points", "--out", script, "--max-runs", "300"}, input...)...)
	data, err := os.ReadFile(script)
	if code != 1 || err != nil || !strings.Contains(string(data), "--input "+first.Input+" --mutant G4 --max-runs 300 --fault-points\n") ||
		!strings.Contains(string(data), "\nfault-points\n----\n") || !strings.Contains(string(data), "fault points on: ") {
		t.Fatalf("shrink --input --fault-points: exit %d, %v\n%s%s\n%s", code, err, out, errOut, data)
	}
	if out, _, code := simrun(t, nil, append([]string{"replay"}, input...)...); code != 0 {
		t.Fatalf("the input replayed unarmed: exit %d, want 0 (another run)\n%s", code, out)
	}
	if out, _, code := simrun(t, nil, append([]string{"shrink", "--out", filepath.Join(dir, "plain.txt")}, input...)...); code != 0 ||
		!strings.Contains(out, "nothing to shrink") {
		t.Fatalf("shrink --input unarmed: exit %d, want 0\n%s", code, out)
	}
}

// TestGateWithFaultPoints: gate --fault-points, under the default strategy
// and the portfolio, prints the same output at --parallel 1 and 2; every
// reproduce command carries --fault-points and fails when run as printed.
func TestGateWithFaultPoints(t *testing.T) {
	for _, strategy := range []string{"random+pct", "portfolio"} {
		args := []string{"gate", "--fault-points", "--strategy", strategy, "--mutant", "G4", "--mutant", "B2", "--seeds", "12",
			"--start-seeds", "2", "--correct-seeds", "1", "--no-timing", "--parallel"}
		out, errOut, code := simrun(t, nil, append(args, "2")...)
		if code != 0 || !strings.Contains(out, "gate passed: 2 mutants caught") {
			t.Fatalf("%s: exit %d, want 0\n%s%s", strategy, code, out, errOut)
		}
		if again, _, _ := simrun(t, nil, append(args, "1")...); again != out {
			t.Fatalf("%s: --parallel 1 and 2 differ:\n%s\nvs\n%s", strategy, again, out)
		}
		for _, m := range []string{"G4", "B2"} {
			_, cmd, ok := strings.Cut(out, "\n"+m+": go run ./cmd/simrun ")
			line := strings.SplitN(cmd, "\n", 2)[0]
			if !ok || !strings.HasSuffix(line, " --fault-points") {
				t.Fatalf("%s: %s's reproduce command lacks --fault-points:\n%s", strategy, m, out)
			}
			if rout, _, rcode := simrun(t, nil, strings.Fields(line)...); rcode != 1 {
				t.Fatalf("%s: %s: exit %d, want 1\n%s", strategy, line, rcode, rout)
			}
		}
	}
}

// TestReplayReportOfASeedWithFaultPoints: replay --fault-points --report
// writes the report of the armed run (it fails, names the point on, and
// its commands carry the flag), not of the seed's unarmed run (which
// passes).
func TestReplayReportOfASeedWithFaultPoints(t *testing.T) {
	report := filepath.Join(t.TempDir(), "r.html")
	out, errOut, code := simrun(t, nil, append([]string{"replay", "--fault-points", "--report", report}, armedOnlySeed...)...)
	page, err := os.ReadFile(report)
	if code != 1 || err != nil {
		t.Fatalf("exit %d (want 1), %v\n%s%s", code, err, out, errOut)
	}
	for _, want := range []string{">FAIL<", "force-delete-failing-terminate seed 30", "fault points on", "slow-sync-under-kill",
		"replay --scenario force-delete-failing-terminate --seed 30 --strategy random --mutant G4 --fault-points",
		"simrun shrink --scenario force-delete-failing-terminate --seed 30 --strategy random --mutant G4 --fault-points saves"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("the report lacks %q", want)
		}
	}
}
