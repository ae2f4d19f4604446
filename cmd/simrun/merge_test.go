package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/podsim/podsim/plan"
)

// TestMergeOfShardsIsTheWholeRun: run → merge gives back the unsharded
// results, byte for byte.
func TestMergeOfShardsIsTheWholeRun(t *testing.T) {
	dir := t.TempDir()
	whole := filepath.Join(dir, "whole.json")
	simrun(t, nil, "run", "--seeds", "40", "--json", whole)
	var shards []string
	for k := 0; k < 3; k++ {
		path := filepath.Join(dir, fmt.Sprintf("shard%d.json", k))
		simrun(t, nil, "run", "--seeds", "40", "--shard", fmt.Sprintf("%d/3", k), "--json", path)
		shards = append(shards, path)
	}
	merged := filepath.Join(dir, "merged.json")
	out, errOut, code := simrun(t, nil, append([]string{"merge", "--json", merged}, shards...)...)
	if code != 0 {
		t.Fatalf("merge: exit %d\n%s%s", code, out, errOut)
	}
	want, _ := os.ReadFile(whole)
	got, _ := os.ReadFile(merged)
	if string(got) != string(want) {
		t.Fatalf("merged results differ from the whole run")
	}
	if !strings.Contains(out, fmt.Sprintf("%d results from 3 files, 0 failed", 40*len(plan.Families()))) {
		t.Fatalf("merge summary: %s", out)
	}
}

func TestMergeRejectsBadFiles(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.json")
	simrun(t, nil, "run", "--seeds", "3", "--scenario", "swarm", "--json", good)
	data, _ := os.ReadFile(good)
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	conflict := strings.Replace(string(data), `"steps": `, `"steps": 1`, 1)
	cases := []struct {
		name, file, want string
	}{
		{"truncated", write("trunc.json", string(data[:len(data)/2])), "not a simrun results file"},
		{"not json", write("junk.json", "hello"), "not a simrun results file"},
		{"unknown field", write("extra.json", `{"results":[],"x":1}`), "unknown field"},
		{"no results", write("empty.json", `{}`), "no results list"},
		{"bad verdict", write("verdict.json", `{"results":[{"scenario":"swarm","seed":1,"verdict":"maybe","trace_sha256":"`+strings.Repeat("a", 64)+`"}]}`), "verdict pass or fail"},
		{"trailing data", write("trail.json", string(data)+"{}"), "data after the results"},
		{"missing", filepath.Join(dir, "nope.json"), "cannot read"},
		{"conflict", write("conflict.json", conflict), "disagrees with an earlier file"},
	}
	for _, c := range cases {
		args := []string{"merge", c.file}
		if c.name == "conflict" {
			args = []string{"merge", good, c.file}
		}
		out, errOut, code := simrun(t, nil, args...)
		if code != 2 || !strings.Contains(errOut, c.want) || out != "" {
			t.Errorf("%s: got exit %d, stdout %q, stderr %q; want exit 2 and %q", c.name, code, out, errOut, c.want)
		}
	}
}
