package main

import (
	"os"
	"path/filepath"
	"testing"
)

// TestTableIsTheSameLeanOrFull: without --json a sweep's runs are Lean (no
// trace hash or coverage tuples for a passing seed), with it they are
// full; the table, the failures it lists and --out's artifacts of the
// failing seeds (verdict with its hash, trace, report) are the same bytes
// either way, under the random walk and the guided loop; and every --json
// line still carries its trace hash and its tuples.
func TestTableIsTheSameLeanOrFull(t *testing.T) {
	for _, strategy := range []string{"random", "guided"} {
		dir := t.TempDir()
		args := []string{"run", "--no-timing", "--scenario", "early-kill", "--mutant", "B2", "--seeds", "30", "--strategy", strategy}
		lean, leanErr, leanCode := simrun(t, nil, append(args, "--out", filepath.Join(dir, "lean"))...)
		jsonPath := filepath.Join(dir, "r.json")
		full, fullErr, fullCode := simrun(t, nil, append(args, "--out", filepath.Join(dir, "full"), "--json", jsonPath)...)
		if leanCode != 1 || fullCode != 1 {
			t.Fatalf("%s: exit %d and %d, want 1 (the mutant's seeds fail)\n%s\n%s", strategy, leanCode, fullCode, leanErr, fullErr)
		}
		if lean != full {
			t.Fatalf("%s: the table without --json differs from the table with it:\n%s\n---\n%s", strategy, lean, full)
		}
		if n := sameTrees(t, filepath.Join(dir, "lean"), filepath.Join(dir, "full")); n < 3 {
			t.Fatalf("%s: --out wrote %d files: want a failing seed's artifacts", strategy, n)
		}
		failed := 0
		for _, r := range readResults(t, jsonPath) {
			if len(r.TraceSHA256) != 64 || len(r.Tuples) == 0 {
				t.Fatalf("%s: --json line of seed %d has hash %q and %d tuples: want both", strategy, r.Seed, r.TraceSHA256, len(r.Tuples))
			}
			if r.Verdict == "fail" {
				failed++
			}
		}
		if failed == 0 {
			t.Fatalf("%s: no seed failed", strategy)
		}
	}
}

// sameTrees fails t unless directories a and b hold the same files with
// the same bytes; it returns how many files they hold.
func sameTrees(t *testing.T, a, b string) int {
	t.Helper()
	n := 0
	err := filepath.WalkDir(a, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(a, path)
		x, _ := os.ReadFile(path)
		y, err := os.ReadFile(filepath.Join(b, rel))
		if err != nil || string(x) != string(y) {
			t.Fatalf("%s differs between %s and %s (%v)", rel, a, b, err)
		}
		n++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var m int
	filepath.WalkDir(b, func(_ string, d os.DirEntry, _ error) error {
		if d != nil && !d.IsDir() {
			m++
		}
		return nil
	})
	if m != n {
		t.Fatalf("%s holds %d files, %s %d", a, n, b, m)
	}
	return n
}
