package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/podsim/podsim/plan"
)

// TestMergeOfShardsIsTheWholeRun: run → merge gives back the unsharded
// results, byte for byte.
func TestMergeOfShardsIsTheWholeRun(t *testing.T) {
	dir := t.TempDir()
	whole := filepath.Join(dir, "whole.json")
	// 10 seeds (it was 40): no multiple of 3, so the shards are uneven
	// (4, 3, 3 per family) and merge must interleave them back into seed
	// order family by family; more seeds repeat the same interleaving.
	simrun(t, nil, "run", "--seeds", "10", "--json", whole)
	var shards []string
	for k := 0; k < 3; k++ {
		path := filepath.Join(dir, fmt.Sprintf("shard%d.json", k))
		simrun(t, nil, "run", "--seeds", "10", "--shard", fmt.Sprintf("%d/3", k), "--json", path)
		shards = append(shards, path)
	}
	merged := filepath.Join(dir, "merged.json")
	out, errOut, code := simrun(t, nil, append([]string{"merge", "--json", merged}, shards...)...)
	if code != 0 {
		t.Fatalf("merge: exit %d\n%s%s", code, out, errOut)
	}
	if want, got := readResults(t, whole), readResults(t, merged); !reflect.DeepEqual(got, want) {
		t.Fatalf("merged results differ from the whole run")
	}
	if !strings.Contains(out, fmt.Sprintf("%d results from 3 files, 0 failed", 10*len(plan.Families()))) {
		t.Fatalf("merge summary: %s", out)
	}
}

func TestMergeRejectsBadFiles(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.json")
	simrun(t, nil, "run", "--seeds", "3", "--scenario", "swarm", "--json", good)
	data, _ := os.ReadFile(good)
	lines := strings.SplitAfter(string(data), "\n")
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	header, row, end := lines[0], lines[1], lines[len(lines)-2]
	emptyEnd := strings.Replace(end, `"results":3`, `"results":0`, 1)
	cases := []struct {
		name  string
		files []string
		want  string
	}{
		{"truncated", []string{write("trunc.json", string(data[:len(data)/2]))}, "results file"},
		{"cut after a line", []string{write("cut.json", header+row)}, "no end record"},
		{"not json", []string{write("junk.json", "hello")}, "not a simrun results file"},
		{"old document", []string{write("doc.json", `{"results":[]}`)}, "want a run record"},
		{"unknown field", []string{write("extra.json", strings.Replace(string(data), `"verdict":`, `"x":1,"verdict":`, 1))}, "unknown field"},
		{"bad verdict", []string{write("verdict.json", strings.Replace(string(data), `"pass"`, `"maybe"`, 1))}, "verdict pass or fail"},
		{"unknown scenario", []string{write("scen.json", strings.Replace(string(data), `{"scenario":"swarm"`, `{"scenario":"swarn"`, 1))}, `unknown scenario "swarn"`},
		{"count mismatch", []string{write("count.json", header+row+end)}, "the end record counts 3"},
		{"trailing data", []string{write("trail.json", string(data)+"{}")}, "want a run record"},
		{"missing", []string{filepath.Join(dir, "nope.json")}, "cannot read"},
		{"no files", nil, "merge needs at least one results file"},
		{"no results", []string{write("empty.json", header+emptyEnd)}, "no results in 1 files"},
		{"conflict", []string{good, write("conflict.json", strings.Replace(string(data), `"steps":`, `"steps":1`, 1))},
			"swarm seed 0 (random) disagrees with an earlier file on steps"},
		{"conflict in sha", []string{good, write("sha.json", otherHash(string(data)))},
			"disagrees with an earlier file on trace_sha256"},
	}
	for _, c := range cases {
		out, errOut, code := simrun(t, nil, append([]string{"merge"}, c.files...)...)
		if code != 2 || !strings.Contains(errOut, c.want) || out != "" || strings.Count(errOut, "\n") != 1 {
			t.Errorf("%s: got exit %d, stdout %q, stderr %q; want exit 2 and one line with %q", c.name, code, out, errOut, c.want)
		}
	}
}

// TestMergeMatchesOnStrategyAndMutant: the same seed under another
// strategy or mutant is another result, not a conflict; an interrupted
// input makes the merge incomplete (exit 1); stdin reads concatenated files.
func TestMergeMatchesOnStrategyAndMutant(t *testing.T) {
	dir := t.TempDir()
	paths := []string{filepath.Join(dir, "r.json"), filepath.Join(dir, "p.json"), filepath.Join(dir, "m.json")}
	simrun(t, nil, "run", "--seeds", "2", "--scenario", "swarm", "--json", paths[0])
	simrun(t, nil, "run", "--seeds", "2", "--scenario", "swarm", "--strategy", "pct", "--json", paths[1])
	simrun(t, nil, "run", "--seeds", "2", "--scenario", "swarm", "--mutant", "B2", "--json", paths[2])
	out, errOut, code := simrun(t, nil, append([]string{"merge"}, paths...)...)
	if !strings.Contains(out, "6 results from 3 files") || code == 2 {
		t.Fatalf("exit %d: %s%s", code, out, errOut)
	}
	var cat []byte
	for _, p := range paths {
		data, _ := os.ReadFile(p)
		cat = append(cat, data...)
	}
	cmd := exec.Command(binary, "merge", "-")
	cmd.Stdin = strings.NewReader(string(cat))
	got, err := cmd.Output()
	if !strings.Contains(string(got), "6 results from 1 files") {
		t.Fatalf("merge - of concatenated files: %v: %s", err, got)
	}
	data, _ := os.ReadFile(paths[0])
	partial := filepath.Join(dir, "partial.json")
	if err := os.WriteFile(partial, []byte(strings.Replace(string(data), `"interrupted":false`, `"interrupted":true`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	out, _, code = simrun(t, nil, "merge", partial)
	if code != 1 || !strings.Contains(out, "INCOMPLETE: 1 input runs were interrupted") {
		t.Fatalf("an interrupted input: exit %d, %q; want 1 and INCOMPLETE", code, out)
	}
}

// otherHash changes the first result's trace hash.
func otherHash(data string) string {
	i := strings.Index(data, `"trace_sha256":"`) + len(`"trace_sha256":"`)
	c := "0"
	if data[i] == '0' {
		c = "1"
	}
	return data[:i] + c + data[i+1:]
}
