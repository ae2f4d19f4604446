package main

import (
	"cmp"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestArgs: good command lines become the right test-binary arguments;
// bad ones are refused with a message (exit 2 in main), never run.
func TestArgs(t *testing.T) {
	good := map[string]string{
		"run":                               "-test.run ^TestSweep$ -test.v -sweep 100 -sweep.start 1",
		"run --scenario swarm --seeds 5":    "-test.run ^TestSweep$ -test.v -sweep 5 -sweep.start 1 -sweep.family swarm",
		"replay --scenario swarm --seed 16": "-test.run ^TestReplaySeed$ -test.v -replay -shrink.family swarm -shrink.seed 16",
		"replay --scenario orphan-runtime-pods --seed 56 --hold": "-test.run ^TestReplaySeed$ -test.v -replay -shrink.family orphan-runtime-pods -shrink.seed 56 -sweep.hold",
		"shrink --scenario swarm --seed 16 --class GB":           "-test.run ^TestShrinkSeed$ -test.v -shrink.family swarm -shrink.seed 16 -shrink.class GB",
		"run --real status,eviction":                             "-test.run ^TestSweep$ -test.v -sweep 100 -sweep.start 1 -sweep.real status,eviction",
		"run --real none":                                        "-test.run ^TestSweep$ -test.v -sweep 100 -sweep.start 1 -sweep.real none",
		"run --real all":                                         "-test.run ^TestSweep$ -test.v -sweep 100 -sweep.start 1",
		"run --strategy guided --seeds 50":                       "-test.run ^TestSweep$ -test.v -sweep 50 -sweep.start 1 -sweep.strategy guided",
		"run --strategy guided --corpus /tmp/c":                  "-test.run ^TestSweep$ -test.v -sweep 100 -sweep.start 1 -sweep.strategy guided -sweep.corpus /tmp/c",
		"run --strategy random":                                  "-test.run ^TestSweep$ -test.v -sweep 100 -sweep.start 1",
	}
	checkToolArgs(t, good)
	tree := fakeTree(t)
	for _, line := range []string{"gate --kubernetes " + tree, "gate --mutants", "gate --mutants --mutant B2 --json --seeds 5",
		"gate --kubernetes " + tree + " --base " + tree + " --modes hold", "workfile --kubernetes " + tree,
		"workfile --tags --kubernetes " + tree, "run --kubernetes " + tree, "gate --kubernetes v1.37.2", "gate --kubernetes " + tree + " --base v1.37.2",
		"replay --kubernetes v1.37.2 --scenario swarm --seed 3", "gate --mutants --base v1.35.4",
		"gate --virtual-kubelet v1.15.0", "gate --virtual-kubelet v1.15.0 --base v1.13.0", "run --virtual-kubelet v1.14.1 --seeds 3"} {
		if _, err := parse(strings.Fields(line), io.Discard); err != nil {
			t.Errorf("%q: %v", line, err)
		}
	}
	bad := map[string]string{
		"":                                    "want a command",
		"explode":                             "unknown command",
		"run --scenario nope":                 "unknown scenario",
		"run --seeds 0":                       "must be positive",
		"run --seeds x":                       "invalid value",
		"replay --seed 3":                     "needs --scenario",
		"replay --scenario swarm":             "needs --seed",
		"shrink --scenario swarm --seed -1":   "needs --seed",
		"run extra":                           "unexpected argument",
		"run --kubernetes /nonexistent":       "not a kubernetes tree",
		"gate":                                "exactly one of --kubernetes DIR, --virtual-kubelet DIR and --mutants",
		"gate --mutants --kubernetes " + tree: "exactly one of",
		"gate --kubernetes " + tree + " --base v1.37": "--base v1.37: not a kubernetes tree",
		"gate --kubernetes v1.37":                     "--kubernetes v1.37: not a kubernetes tree",
		"gate --kubernetes " + tree + " --modes fast": "unknown mode",
		"gate --kubernetes " + tree + " --seeds 0":    "must be positive",
		"gate --kubernetes " + tree + " --hang -1s":   "must not be negative",
		"run --hang 5s": "--hang is not a flag of run (it is for gate and mutation)",
		"gate --kubernetes " + tree + " --mutant B2": "--mutant needs --mutants",
		"gate --kubernetes " + tree + " --shrink -1": "must not be negative",
		"workfile":                  "needs --kubernetes",
		"run --tags":                "--tags is not a flag of run (it is for workfile)",
		"run --real status,shutdwn": "unknown component \"shutdwn\"",
		"run --strategy pct":        "--strategy: unknown strategy \"pct\" (want random or guided)",
		"run --corpus /tmp/c":       "--corpus needs --strategy guided",
		"replay --scenario swarm --seed 1 --real ,":     "unknown component",
		"run --kubernetes " + filepath.Dir(tree) + "/x": "not a kubernetes tree",
	}
	wantParse(t, bad)
}

// checkToolArgs: each command line of good parses and becomes its test
// binary arguments.
func checkToolArgs(t *testing.T, good map[string]string) {
	t.Helper()
	for line, want := range good {
		o, err := parse(strings.Fields(line), io.Discard)
		if err != nil {
			t.Errorf("%q: %v", line, err)
			continue
		}
		if got, err := toolArgs(o); err != nil || strings.Join(got, " ") != want {
			t.Errorf("%q: got %q, %v; want %q", line, got, err, want)
		}
	}
}

// fakeTree is the smallest directory checkTree accepts.
func fakeTree(t *testing.T) string {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "pkg", "kubelet"), 0o755)
	os.WriteFile(filepath.Join(dir, "go.mod"), []byte("// generated\nmodule k8s.io/kubernetes\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "pkg", "kubelet", "pod_workers.go"), []byte("package kubelet\n"), 0o644)
	return dir
}

// TestDiffRuns: a key new on the candidate for the same run is a
// regression, one gone is a fix; the same key on another seed is neither
// hidden nor excused. A guided run is its own run even at a seed's number,
// its regressions come after the seeds', and its fixes are left out (the
// base runs only the inputs the candidate found something on).
func TestDiffRuns(t *testing.T) {
	seed := func(s uint64, hold bool) runKey { return runKey{Family: "swarm", Seed: s, Hold: hold} }
	run := func(i uint64, token string) runKey { return runKey{Family: "swarm", Seed: i, Input: token} }
	base := map[runKey][]string{seed(1, false): {"G1 S14"}, seed(2, true): {"GB S14"},
		run(1, "pg1.a"): {"G1 S14", "GA S11"}, run(4, "pg1.b"): {"GA S11"}}
	cand := map[runKey][]string{seed(1, false): {"G1 S14", "UNEXPLAINED S3"}, seed(3, false): {"G1 S14"},
		run(1, "pg1.a"): {"G1 S14", "UNEXPLAINED K5"}, run(4, "pg1.b"): {"GA S11"}, run(0, "pg1.c"): {"G3 S9"}}
	regs, fixes := diffRuns(base, cand)
	var got []string
	for _, c := range regs {
		got = append(got, fmt.Sprintf("%s/%s/%d/%s/%s", c.Mode, c.Family, c.Seed, c.Input, c.Key))
	}
	want := "plain/swarm/1//UNEXPLAINED S3;plain/swarm/3//G1 S14;plain/swarm/0/pg1.c/G3 S9;plain/swarm/1/pg1.a/UNEXPLAINED K5"
	if strings.Join(got, ";") != want {
		t.Errorf("regressions %v\nwant %s", got, want)
	}
	if len(fixes) != 1 || fixes[0].Key != "GB S14" || fixes[0].Mode != "hold" {
		t.Errorf("fixes %v (want the seed's GB S14 only: a guided run's GA S11 is no fix)", fixes)
	}
	if regs, fixes := diffRuns(base, base); len(regs)+len(fixes) != 0 {
		t.Errorf("a tree differs from itself: %v %v", regs, fixes)
	}
}

// TestTreeThatDoesNotFit: a tree the adapter cannot be built against is
// refused with the one line that says what to do (exit 2 in main), after
// loading packages only (nothing of the kubelet is compiled), and the tree
// is left as it was.
func TestTreeThatDoesNotFit(t *testing.T) {
	tree := fakeTree(t)
	t.Setenv("PODSIM_SCRATCH", t.TempDir())
	o, err := parse([]string{"run", "--kubernetes", tree, "--seeds", "1"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	err = execute(o)
	if err == nil || err == errFailed || !strings.Contains(err.Error(), "lacks packages realkubelet imports") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("got %v, want one line saying the tree lacks packages realkubelet imports", err)
	}
	entries, _ := os.ReadDir(tree)
	if len(entries) != 2 {
		t.Errorf("the tree changed: %v", entries)
	}
}

// TestTableGroups: the table has one row per (tier, mode, family, key),
// with the number of runs and the first (a seed, or a guided run).
func TestTableGroups(t *testing.T) {
	cs := []change{{Family: "a", Seed: 1, Mode: "hold", Key: "K1"}, {Family: "a", Seed: 1, Mode: "hold", Key: "K2"},
		{Family: "a", Seed: 4, Mode: "hold", Key: "K1"}, {Family: "a", Seed: 5, Mode: "hold", Key: "K3"},
		{Family: "a", Seed: 300, Mode: "hold", Key: "K1", Tier: "deep"}, {Family: "a", Seed: 301, Mode: "hold", Key: "K1", Tier: "deep"},
		{Family: "a", Seed: 6, Mode: "hold", Key: "K1", Tier: "guided", Input: "pg1.x"},
		{Family: "b", Seed: 2, Mode: "hold", Key: "K1"}, {Family: "a", Seed: 3, Mode: "plain", Key: "K1"}}
	for i := range cs {
		cs[i].Tier = cmp.Or(cs[i].Tier, "shallow")
	}
	var b strings.Builder
	printTable(&b, gateReport{Regressions: cs, Modes: []string{"plain", "hold"}}, "/out")
	var rows []string
	for _, l := range strings.Split(b.String(), "\n") {
		if f := strings.Fields(l); len(f) >= 7 && (f[0] == "shallow" || f[0] == "deep" || f[0] == "guided") {
			rows = append(rows, strings.Join(f[:7], " "))
		}
	}
	want := "shallow hold a K1 2 seed 1;shallow hold a K2 1 seed 1;shallow hold a K3 1 seed 5;deep hold a K1 2 seed 300;" +
		"guided hold a K1 1 run 6;shallow hold b K1 1 seed 2;shallow plain a K1 1 seed 3"
	if got := strings.Join(rows, ";"); got != want {
		t.Errorf("rows %q, want %q", got, want)
	}
}

// TestHelp: a command's -h lists its flags (main prints them and exits 0);
// a bad flag is an error, not help.
func TestHelp(t *testing.T) {
	var b strings.Builder
	if _, err := parse([]string{"run", "-h"}, &b); !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("run -h: %v, want flag.ErrHelp", err)
	}
	if !strings.Contains(b.String(), "-seeds") {
		t.Errorf("run -h printed no flags:\n%s", b.String())
	}
	if _, err := parse([]string{"run", "--bogus"}, io.Discard); err == nil || errors.Is(err, flag.ErrHelp) {
		t.Errorf("run --bogus: %v, want a usage error", err)
	}
}

// TestResolveReleases: a release named by --kubernetes or --base becomes
// its assembled tree, and printed commands keep the release's name; the
// pin (--base's default) and a VK run fetch nothing.
func TestResolveReleases(t *testing.T) {
	cache := fakeTree(t)
	var asked []string
	fetch := func(mods []string) (map[string]string, map[string]string, error) {
		asked = append(asked, mods...)
		dirs := map[string]string{}
		for _, m := range mods {
			dirs[m] = cache
		}
		return dirs, nil, nil
	}
	root := t.TempDir()
	o := options{kubernetes: "v1.37.2", base: pinned}
	if err := resolveReleases(&o, root, fetch); err != nil {
		t.Fatal(err)
	}
	if o.kubernetes != filepath.Join(root, "releases", "v1.37.2", "tree") || o.candidateArg() != "v1.37.2" || o.base != pinned || o.baseArg != "" {
		t.Errorf("--kubernetes v1.37.2: tree %q, printed as %q; base %q (%q)", o.kubernetes, o.candidateArg(), o.base, o.baseArg)
	}
	o = options{kubernetes: cache, base: "v1.36.1"}
	if err := resolveReleases(&o, root, fetch); err != nil || o.base != filepath.Join(root, "releases", "v1.36.1", "tree") ||
		o.baseArg != "v1.36.1" || o.candidateArg() != cache {
		t.Errorf("--base v1.36.1: %v, base %q (%q), candidate printed as %q", err, o.base, o.baseArg, o.candidateArg())
	}
	asked = nil
	o = options{vk: true, base: vkPinned}
	if err := resolveReleases(&o, root, fetch); err != nil || len(asked) > 0 || o.base != vkPinned {
		t.Errorf("a VK run on the pin: %v, fetched %q, base %q", err, asked, o.base)
	}
	o = options{vk: true, virtualKubelet: "v1.15.0", base: "v1.13.0"}
	if err := resolveReleases(&o, root, fetch); err != nil || o.virtualKubelet != cache || o.base != cache || o.candidateArg() != "v1.15.0" ||
		o.baseArg != "v1.13.0" || !slices.Equal(asked, []string{vkModule + "@v1.15.0", vkModule + "@v1.13.0"}) {
		t.Errorf("VK releases: %v, tree %q base %q, printed %q %q, fetched %q", err, o.virtualKubelet, o.base, o.candidateArg(), o.baseArg, asked)
	}
	unserved := func([]string) (map[string]string, map[string]string, error) {
		return map[string]string{}, map[string]string{vkModule + "@v9.0.0": "403 Forbidden"}, nil
	}
	o = options{vk: true, virtualKubelet: "v9.0.0", base: vkPinned}
	if err := resolveReleases(&o, root, unserved); err == nil || !strings.Contains(err.Error(), "cannot fetch "+vkModule+"@v9.0.0: 403 Forbidden") {
		t.Errorf("an unserved VK release: %v", err)
	}
}

// TestWorkFileTags: workfile --tags prints the flag a kubernetes tree's
// API shapes need (v1.38's status cache: podsim_cachectx), nothing for a
// tree of the pin's shapes, and nothing for a virtual-kubelet tree.
func TestWorkFileTags(t *testing.T) {
	tree := fakeTree(t)
	if got := (target{user: tree}).tagFlag(); got != "" {
		t.Errorf("a tree of the pin's shapes: %q, want none", got)
	}
	cache := filepath.Join(tree, "pkg", "kubelet", "container", "cache.go")
	if err := os.MkdirAll(filepath.Dir(cache), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cache, []byte("package container\n\ntype ROCache interface {\n\tGet(context.Context, types.UID) (*PodStatus, error)\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := (target{user: tree}).tagFlag(); got != "-tags=podsim_cachectx" {
		t.Errorf("a tree whose cache reads take a context: %q, want -tags=podsim_cachectx", got)
	}
	if got := (target{user: tree, vk: true}).tagFlag(); got != "" {
		t.Errorf("a virtual-kubelet target: %q, want none", got)
	}
}

// wantParse parses each command line of cases: "" must parse, any other
// must be refused with one line containing it.
func wantParse(t *testing.T, cases map[string]string) {
	t.Helper()
	for line, want := range cases {
		_, err := parse(strings.Fields(line), io.Discard)
		switch {
		case want == "" && err != nil:
			t.Errorf("%q: %v, want no error", line, err)
		case want != "" && (err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n")):
			t.Errorf("%q: error %v, want one line containing %q", line, err, want)
		}
	}
}
