package main

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestPortfolioSplit: the parts' shares add up to the budget, their seed
// ranges follow each other, and a budget too small for a share gives it
// to the random walk.
func TestPortfolioSplit(t *testing.T) {
	parts, firsts, counts := portfolioSplit(100, 24)
	if want := []uint64{9, 3, 3, 3, 6}; !reflect.DeepEqual(counts, want) {
		t.Fatalf("counts %v, want %v", counts, want)
	}
	if want := []uint64{100, 109, 112, 115, 118}; !reflect.DeepEqual(firsts, want) {
		t.Fatalf("firsts %v, want %v", firsts, want)
	}
	var args []string
	for _, p := range parts {
		args = append(args, p.arg())
	}
	if want := "random,pct --pct-depth 2,pct,pct --pct-depth 5,guided"; strings.Join(args, ",") != want {
		t.Fatalf("parts %v, want %s", args, want)
	}
	if _, _, counts := portfolioSplit(0, 3); !reflect.DeepEqual(counts, []uint64{3, 0, 0, 0, 0}) {
		t.Fatalf("3 seeds split %v, want all random", counts)
	}
}

// TestPortfolioIsDeterministicAndReplays: a portfolio sweep gives the same
// results at --parallel 1 and 3, every part's strategy appears in the
// results, and each failure's printed reproduce command, run as printed,
// fails with the very trace of its --json line.
func TestPortfolioIsDeterministicAndReplays(t *testing.T) {
	outDir := filepath.Join(t.TempDir(), "out")
	sweep := func(parallel string) ([]jsonResult, string) {
		results := filepath.Join(t.TempDir(), "p.json")
		args := []string{"run", "--strategy", "portfolio", "--scenario", "update-storm", "--seeds", "24",
			"--mutant", "B2", "--fault-points", "--parallel", parallel, "--json", results, "--no-timing"}
		if parallel == "1" {
			args = append(args, "--out", outDir)
		}
		out, errOut, code := simrun(t, nil, args...)
		if code != 1 {
			t.Fatalf("exit %d, want 1 (B2 caught)\n%s%s", code, out, errOut)
		}
		return readResults(t, results), out
	}
	r1, out := sweep("1")
	r3, _ := sweep("3")
	if !reflect.DeepEqual(r1, r3) {
		t.Fatal("the same portfolio sweep differs at --parallel 1 and 3")
	}
	// --out's verdict of a PCT failure names its part's strategy.
	for _, r := range r1 {
		if r.Verdict == "fail" && strings.HasPrefix(r.Strategy, "pct") {
			v, err := os.ReadFile(filepath.Join(outDir, r.Scenario, fmt.Sprintf("seed-%d", r.Seed), "verdict.txt"))
			if err != nil || !strings.Contains(string(v), "--strategy "+r.Strategy+" --mutant B2 --fault-points") {
				t.Fatalf("verdict of %s seed %d: %v\n%s", r.Strategy, r.Seed, err, v)
			}
			break
		}
	}
	seen := map[string]int{}
	for _, r := range r1 {
		seen[r.Strategy]++
	}
	want := map[string]int{"random": 9, "pct --pct-depth 2": 3, "pct": 3, "pct --pct-depth 5": 3, "guided": 6}
	if !reflect.DeepEqual(seen, want) {
		t.Fatalf("runs per strategy %v, want %v", seen, want)
	}
	replayed := map[string]bool{}
	for _, block := range strings.Split(out, "FAIL ")[1:] {
		_, cmd, ok := strings.Cut(block, "reproduce: go run ./cmd/simrun ")
		if !ok {
			continue
		}
		args := strings.Fields(strings.SplitN(cmd, "\n", 2)[0])
		strategy := "guided"
		if i := slices.Index(args, "--strategy"); i >= 0 {
			strategy = args[i+1]
		}
		if replayed[strategy] || args[len(args)-1] != "--fault-points" {
			continue
		}
		replayed[strategy] = true
		rout, _, code := simrun(t, nil, args...)
		if code != 1 || !strings.Contains(rout, "trace sha256 ") {
			t.Fatalf("%v: exit %d, want 1\n%s", args, code, rout)
		}
		sha := strings.Fields(strings.SplitN(strings.SplitN(rout, "trace sha256 ", 2)[1], "\n", 2)[0])[0]
		if !hasTrace(r1, sha) {
			t.Fatalf("%v replays to trace %s, which no failing result has", args, sha)
		}
	}
	if !replayed["random"] || !replayed["guided"] || !replayed["pct"] {
		t.Fatalf("replayed the failures of %v, want random, pct and guided", replayed)
	}
}

func hasTrace(rs []jsonResult, sha string) bool {
	for _, r := range rs {
		if r.Verdict == "fail" && r.TraceSHA256 == sha {
			return true
		}
	}
	return false
}

// TestGatePortfolio: gate --strategy portfolio catches a mutant and prints
// a replay command that fails when run as printed; a strategy the gate
// does not know is bad usage (one line, exit 2).
func TestGatePortfolio(t *testing.T) {
	out, errOut, code := simrun(t, nil, "gate", "--strategy", "portfolio", "--mutant", "B1", "--seeds", "6",
		"--start-seeds", "2", "--correct-seeds", "1", "--no-timing")
	if code != 0 || !strings.Contains(out, " families × 2 portfolio runs), 0 failed") {
		t.Fatalf("exit %d, want 0\n%s%s", code, out, errOut)
	}
	_, cmd, ok := strings.Cut(out, "B1: go run ./cmd/simrun ")
	if !ok {
		t.Fatalf("no replay command for B1:\n%s", out)
	}
	args := strings.Fields(strings.SplitN(cmd, "\n", 2)[0])
	if rout, _, rcode := simrun(t, nil, args...); rcode != 1 {
		t.Fatalf("%v: exit %d, want 1\n%s", args, rcode, rout)
	}
	_, errOut, code = simrun(t, nil, "gate", "--strategy", "guided")
	if code != 2 || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, "want random+pct or portfolio") {
		t.Fatalf("gate --strategy guided: exit %d, stderr %q", code, errOut)
	}
}
