package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/podsim/podsim/guided"
)

// fakeVKTree is the smallest directory checkVKTree accepts.
func fakeVKTree(t *testing.T) string {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "node"), 0o755)
	os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module "+vkModule+"\n\ngo 1.24\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "node", "podcontroller.go"), []byte("package node\n"), 0o644)
	return dir
}

// TestVKArgs: --vk (or --virtual-kubelet DIR) makes run, replay, shrink
// and gate work on the virtual-kubelet: the VK families, one mode, the
// gate's base the pin unless --base names a tree; the kubelet's flags and
// another target's families or modes are refused with one line.
func TestVKArgs(t *testing.T) {
	token := guided.Input{Plan: guided.Stream{Choices: []int{1, 2}}}.Token()
	checkToolArgs(t, map[string]string{
		"run --vk --scenario vk-swarm --seeds 5":                             "-test.run ^TestSweep$ -test.v -sweep 5 -sweep.start 1 -sweep.family vk-swarm",
		"run --vk --strategy guided --corpus /tmp/c --rerun-corpus":          "-test.run ^TestSweep$ -test.v -sweep 100 -sweep.start 1 -sweep.strategy guided -sweep.corpus /tmp/c -sweep.rerun",
		"replay --vk --scenario vk-delete-recreate --seed 2":                 "-test.run ^TestReplaySeed$ -test.v -replay -shrink.family vk-delete-recreate -shrink.seed 2",
		"shrink --vk --scenario vk-startup --input " + token + " --class VA": "-test.run ^TestShrinkSeed$ -test.v -shrink.family vk-startup -shrink.input " + token + " -shrink.class VA",
	})
	tree, other := fakeVKTree(t), fakeVKTree(t)
	for line, base := range map[string]string{
		"gate --virtual-kubelet " + tree:                                 vkPinned,
		"gate --vk --virtual-kubelet " + tree + " --base " + vkPinned:    vkPinned,
		"gate --virtual-kubelet " + tree + " --base " + other:            other,
		"gate --virtual-kubelet " + tree + " --deep vk-swarm/plain:500":  vkPinned,
		"gate --virtual-kubelet " + tree + " --scenario vk-swarm --json": vkPinned,
		"gate --vk --mutants --mutant V2 --seeds 50":                     vkPinned,
		"gate --vk --mutants --base " + other:                            other,
	} {
		o, err := parse(strings.Fields(line), io.Discard)
		if err != nil || !o.vk || o.base != base || o.modes != "plain" {
			t.Errorf("%q: vk %v, base %q, modes %q, %v; want vk, base %q, modes plain", line, o.vk, o.base, o.modes, err, base)
		}
	}
	kube := fakeTree(t)
	gate := "gate --virtual-kubelet " + tree
	bad := map[string]string{
		"gate --vk":             "gate --vk needs exactly one of --virtual-kubelet DIR (the candidate tree) and --mutants",
		gate + " --hold":        "--hold holds the kubelet's wake-ups",
		gate + " --modes plain": "--modes picks the kubelet's wake-up modes",
		gate + " --mutants":     "gate --vk needs exactly one of --virtual-kubelet DIR",
		"gate --vk --mutants --deep vk-swarm/plain:500":                   "--deep is for gating a --kubernetes tree, not --mutants",
		"run --vk --real status":                                          "--real picks the kubelet's components",
		"run --vk --kubernetes " + kube:                                   "--kubernetes names a kubernetes tree",
		"workfile --vk":                                                   "workfile --vk needs --virtual-kubelet DIR",
		"run --vk --scenario swarm":                                       `unknown scenario "swarm" (want one of vk-`,
		gate + " --base " + kube:                                          "--base: --virtual-kubelet " + kube + ": go.mod is not module " + vkModule,
		gate + " --base v1.36":                                            "want " + vkPinned + ", the pinned module, another release vMAJOR.MINOR.PATCH, or a virtual-kubelet tree",
		gate + " --deep vk-swarm/hold:500":                                `unknown mode "hold" (want plain: the virtual-kubelet runs have no wake-up modes)`,
		gate + " --deep swarm/plain:500":                                  `--deep swarm/plain:500: unknown family "swarm" (want one of vk-`,
		"gate --kubernetes " + kube + " --deep vk-swarm/plain:500":        `unknown family "vk-swarm" (want one of `,
		gate + " --guided 5 --corpus " + t.TempDir():                      "realrun run --strategy guided --corpus",
		"replay --virtual-kubelet /nonexist --scenario vk-swarm --seed 1": "not a virtual-kubelet tree",
	}
	wantParse(t, bad)
}

// TestVKPinIsRealvks: vkPinned, the gate's default base, is the version
// realvk/go.mod requires.
func TestVKPinIsRealvks(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "realvk", "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "require " + vkModule + " " + vkPinned + "\n"; !strings.Contains(string(b), want) {
		t.Errorf("realvk/go.mod has no line %q: realrun's vkPinned is out of date", strings.TrimSpace(want))
	}
}

// vkGate is a fake of both sides' sweeps on the virtual-kubelet: the
// candidate finds UNEXPLAINED VK1 at vk-delete-recreate seed 1 and, in
// its guided run 2, UNEXPLAINED VK3; the base finds VA VK3 at seed 2,
// which the candidate lacks (a fix).
type vkGate struct{ corpus []string }

func (p *vkGate) sweep(sd side, t tier, file string) (map[runKey][]string, error) {
	run := runKey{Family: "vk-delete-recreate", Seed: 2, Input: "pg1.b"}
	switch {
	case !isGuided(t) && sd.bin == "base":
		return map[runKey][]string{{Family: "vk-delete-recreate", Seed: 2}: {"VA VK3"}}, nil
	case !isGuided(t):
		return map[runKey][]string{{Family: "vk-delete-recreate", Seed: 1}: {"UNEXPLAINED VK1"}}, nil
	case sd.bin == "candidate":
		entries, _ := os.ReadDir(t.Corpus)
		for _, e := range entries {
			p.corpus = append(p.corpus, e.Name())
		}
		return map[runKey][]string{run: {"UNEXPLAINED VK3"}}, os.WriteFile(file, []byte("[]"), 0o644)
	}
	return map[runKey][]string{run: {"VA VK3"}}, nil
}

// TestVKGateReport: the gate on the virtual-kubelet reports its
// regressions with commands that replay them on the candidate tree
// (--virtual-kubelet DIR) and its fixes on the pin (--vk), and its guided
// tier starts from a copy of the corpora in --corpus DIR itself (one
// mode, no mode directory).
func TestVKGateReport(t *testing.T) {
	tree, corpus := fakeVKTree(t), t.TempDir()
	if err := os.WriteFile(guided.Path(corpus, "vk-delete-recreate"), []byte("corpus\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	o, err := parse(strings.Fields("gate --virtual-kubelet "+tree+" --seeds 3 --guided 4 --corpus "+corpus), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	var fake vkGate
	var out strings.Builder
	g := gate{o: o, vk: true, outDir: t.TempDir(), stdout: &out, sweep: fake.sweep, shrink: func([]change, side) {}}
	rep := newReport(o)
	if err := g.judge(&rep, side{bin: "base"}, side{bin: "candidate"}); !errors.Is(err, errFailed) {
		t.Fatalf("judge: %v, want a failure", err)
	}
	var got []string
	for _, c := range append(rep.Regressions, rep.Fixes...) {
		got = append(got, fmt.Sprintf("%s %s: %s", c.Tier, c.Key, c.Reproduce))
	}
	want := []string{
		"shallow UNEXPLAINED VK1: realrun replay --virtual-kubelet " + tree + " --scenario vk-delete-recreate --seed 1",
		"guided UNEXPLAINED VK3: realrun replay --virtual-kubelet " + tree + " --scenario vk-delete-recreate --input pg1.b",
		"shallow VA VK3: realrun replay --vk --scenario vk-delete-recreate --seed 2",
	}
	if !slices.Equal(got, want) {
		t.Errorf("changes:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if !slices.Equal(fake.corpus, []string{"vk-delete-recreate.corpus"}) {
		t.Errorf("the guided tier's corpus copy holds %q, want the corpus file of --corpus DIR itself", fake.corpus)
	}
	if rep.Families != 4 || rep.RunsPerSide != 4*3+4*4 || !strings.Contains(out.String(), "4 families × seeds 1..3 × modes plain") {
		t.Errorf("report: %d families, %d runs per side; table:\n%s", rep.Families, rep.RunsPerSide, out.String())
	}
}

// TestVKGateEndToEnd: realrun gate on a virtual-kubelet tree, as a VK
// engineer runs it: a copy of the pinned module with one line removed
// from node/pod.go (the deletion's UID precondition, which keeps a
// re-created pod of the same name from being deleted when the lister
// lags) fails against the pin in the shallow tier's first seeds, with a
// shrunk script and a replay command that reproduces the finding; the
// unedited copy passes. Builds realvk twice (a link each with the build
// cache warm): skipped in -short.
func TestVKGateEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the realvk test binary")
	}
	pin := goModDir(t)
	same, edited := filepath.Join(t.TempDir(), "vk"), filepath.Join(t.TempDir(), "vk")
	for _, dst := range []string{same, edited} {
		if err := os.CopyFS(dst, os.DirFS(pin)); err != nil {
			t.Fatal(err)
		}
	}
	pod := filepath.Join(edited, "node", "pod.go")
	b, err := os.ReadFile(pod)
	const line = "\tdeleteOptions.Preconditions = metav1.NewUIDPreconditions(uid)\n"
	if err != nil || strings.Count(string(b), line) != 1 {
		t.Fatalf("node/pod.go of the pin has not the line %q once (%v): pick another edit", line, err)
	}
	os.Chmod(pod, 0o644)
	if err := os.WriteFile(pod, []byte(strings.Replace(string(b), line, "", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PODSIM_SCRATCH", t.TempDir())
	kubeletDir, err := moduleDir()
	if err != nil {
		t.Fatal(err)
	}
	for _, tree := range []string{same, edited} {
		outDir := t.TempDir()
		o, err := parse(strings.Fields("gate --virtual-kubelet "+tree+" --scenario vk-delete-recreate --seeds 2 --shrink 1 --json --out "+outDir), io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		err = runGate(o, kubeletDir, os.Getenv("PODSIM_SCRATCH"))
		rep := readReport(t, outDir)
		switch {
		case tree == same && (err != nil || len(rep.Regressions)+len(rep.Fixes) > 0):
			t.Errorf("the unedited pin against itself: %v, %d regressions, %d fixes; want a pass", err, len(rep.Regressions), len(rep.Fixes))
		case tree == edited && (!errors.Is(err, errFailed) || len(rep.Regressions) == 0):
			t.Errorf("the edited tree: %v, %d regressions; want a failure", err, len(rep.Regressions))
		case tree == edited:
			first := rep.Regressions[0]
			if first.Key != "UNEXPLAINED VK1" || first.Seed != 1 || !strings.Contains(first.Script, "vk-delete uid=") {
				t.Errorf("first regression %+v; want UNEXPLAINED VK1 at seed 1 with a shrunk script", first)
			}
			checkReplay(t, first)
		}
	}
}

// goModDir is the module cache's copy of the pinned virtual-kubelet.
func goModDir(t *testing.T) string {
	kubeletDir, err := moduleDir()
	if err != nil {
		t.Fatal(err)
	}
	dir, _, err := vkPinnedDir(filepath.Join(filepath.Dir(kubeletDir), "realvk"))
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// checkReplay runs c's reproduce command (realrun, through this test's
// own parse and execute) and wants its key in the replay's findings.
func checkReplay(t *testing.T, c change) {
	t.Helper()
	args := strings.Fields(strings.TrimPrefix(c.Reproduce, "realrun "))
	o, err := parse(args, io.Discard)
	if err != nil {
		t.Fatalf("%s: %v", c.Reproduce, err)
	}
	stdout := os.Stdout
	r, w, _ := os.Pipe()
	os.Stdout = w
	done := make(chan []byte)
	go func() { b, _ := io.ReadAll(r); done <- b }()
	err = execute(o)
	w.Close()
	os.Stdout = stdout
	out := string(<-done)
	class, check, _ := strings.Cut(c.Key, " ")
	if err != nil || !strings.Contains(out, "["+class+"] "+check) {
		t.Errorf("%s: %v; want a finding [%s] %s in:\n%s", c.Reproduce, err, class, check, out)
	}
}

// readReport reads the gate.json a gate wrote to outDir.
func readReport(t *testing.T, outDir string) gateReport {
	t.Helper()
	var rep gateReport
	b, err := os.ReadFile(filepath.Join(outDir, "gate.json"))
	if err == nil {
		err = json.Unmarshal(b, &rep)
	}
	if err != nil {
		t.Fatalf("gate.json: %v", err)
	}
	return rep
}

// TestVKMutantsEndToEnd: every patch of realvk's catalogue applies to the
// pinned virtual-kubelet, and gate --vk --mutants catches V3 (a pod
// terminating at start-up never synced) at vk-startup seed 1 with
// UNEXPLAINED VK4, as the simulated catalogue's V3 is caught by VK4; and
// V1 (an early notification dropped), a new bug that looks like a known
// one, at vk-startup seed 2: the classifier names its finding VL (a
// v1.14.1 deviation), but the pin's run of that seed lacks it, so the
// gate reports it new; and V8 (an empty tracking entry dereferenced), whose
// sweep dies in vk-delete-recreate seed 11 where the pin's ended. Builds
// realvk four times: skipped in -short.
func TestVKMutantsEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the realvk test binary")
	}
	pin := goModDir(t)
	kubeletDir, err := moduleDir()
	if err != nil {
		t.Fatal(err)
	}
	diffs, _ := filepath.Glob(filepath.Join(filepath.Dir(kubeletDir), "realvk", "testdata", "mutants", "*.diff"))
	if len(diffs) < 7 {
		t.Fatalf("realvk's catalogue has %d patches, want V1-V6 and V8", len(diffs))
	}
	for _, d := range diffs {
		if out, err := exec.Command("patch", "-p1", "--dry-run", "-s", "-d", pin, "-i", d).CombinedOutput(); err != nil {
			t.Errorf("%s does not apply to the pin: %s", filepath.Base(d), out)
		}
	}
	t.Setenv("PODSIM_SCRATCH", t.TempDir())
	for _, c := range []struct {
		mutant, bug string
		seed        int64
		key         string
	}{
		{"V3-terminating-at-start-not-synced", "V3", 1, "UNEXPLAINED VK4"},
		{"V1-notification-before-informer-dropped", "V1", 2, "VL VK2"},
		{"V8-empty-tracking-entry-dereferenced", "V8", 11, ""},
	} {
		outDir, family := t.TempDir(), "vk-startup"
		if c.key == "" {
			family = "vk-delete-recreate"
		}
		line := fmt.Sprintf("gate --vk --mutants --mutant %s --scenario %s --seeds %d --shrink 0 --out %s", c.mutant, family, c.seed, outDir)
		o, err := parse(strings.Fields(line), io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		if err := runGate(o, kubeletDir, os.Getenv("PODSIM_SCRATCH")); err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		b, err := os.ReadFile(filepath.Join(outDir, "mutants.json"))
		var rows []mutantRow
		if err == nil {
			err = json.Unmarshal(b, &rows)
		}
		if err != nil || len(rows) != 1 || !rows[0].Caught || rows[0].First["plain"] != c.seed || rows[0].Bug != c.bug {
			t.Fatalf("mutants.json: %+v, %v; want %s caught at seed %d", rows, err, c.bug, c.seed)
		}
		if died := rows[0].Died; c.key == "" && !strings.Contains(died, "(in vk-delete-recreate plain seed 11): panic: runtime error: invalid memory address or nil pointer dereference") {
			t.Errorf("%s: died %q, want the nil dereference in vk-delete-recreate seed 11", c.bug, died)
		}
		if c.key != "" && !slices.Contains(rows[0].Keys, c.key) {
			t.Errorf("%s: new findings %q, want %s", c.bug, rows[0].Keys, c.key)
		}
	}
}

// TestVKWorkFile: workfile --virtual-kubelet DIR is a go.work that uses
// realvk and replaces the virtual-kubelet module with a mirror of DIR in
// the scratch slot (DIR itself is never written).
func TestVKWorkFile(t *testing.T) {
	tree, root := fakeVKTree(t), t.TempDir()
	if _, err := parse(strings.Fields("workfile --virtual-kubelet "+tree), io.Discard); err != nil {
		t.Fatal(err)
	}
	s, err := target{vk: true, moduleDir: "/mod/realvk"}.prepare(root, "candidate", tree)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(s.GoWork)
	mirror := filepath.Join(root, "vk-candidate", "tree")
	if want := "use /mod/realvk\n\nreplace " + vkModule + " => " + mirror + "\n"; err != nil || !strings.HasSuffix(string(b), want) {
		t.Errorf("go.work %q, %v; want it to end %q", b, err, want)
	}
	if _, err := os.Stat(filepath.Join(mirror, "node", "podcontroller.go")); err != nil {
		t.Errorf("the tree is not mirrored: %v", err)
	}
}

// TestVKReleaseSlotName: a release's tree (the module cache's copy of
// virtual-kubelet@V) names its slot by the release; another tree by its
// path.
func TestVKReleaseSlotName(t *testing.T) {
	rel := filepath.Join(t.TempDir(), "virtual-kubelet@v1.15.0")
	if err := os.Rename(fakeVKTree(t), rel); err != nil {
		t.Fatal(err)
	}
	tg := target{vk: true, moduleDir: "/mod/realvk"}
	if s, err := tg.prepare(t.TempDir(), "candidate", rel); err != nil || s.Name() != "virtual-kubelet v1.15.0" {
		t.Errorf("a release's slot is called %q (%v)", s.Name(), err)
	}
	tree := fakeVKTree(t)
	if s, _ := tg.prepare(t.TempDir(), "candidate", tree); s.Name() != tree {
		t.Errorf("a tree's slot is called %q, want %q", s.Name(), tree)
	}
}
