package main

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/podsim/podsim/guided"
)

// corpusDir is a --corpus directory with a corpus file of family in each
// of modes (the gate only checks that the file is there).
func corpusDir(t *testing.T, family string, modes ...string) string {
	dir := t.TempDir()
	for _, m := range modes {
		if err := os.MkdirAll(filepath.Join(dir, m), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(guided.Path(filepath.Join(dir, m), family), []byte(m+" corpus\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestGuidedArgs: --guided, --corpus, --rerun-corpus and --input become
// the test binary's flags where they belong, and are refused, with one
// line saying what to do, where they do not.
func TestGuidedArgs(t *testing.T) {
	token := guided.Input{Plan: guided.Stream{Choices: []int{1, 2}}}.Token()
	good := map[string]string{
		"replay --scenario swarm --input " + token:             "-test.run ^TestReplaySeed$ -test.v -replay -shrink.family swarm -shrink.input " + token,
		"shrink --scenario swarm --input " + token + " --hold": "-test.run ^TestShrinkSeed$ -test.v -shrink.family swarm -shrink.input " + token + " -shrink.class  -sweep.hold",
		"run --strategy guided --corpus /tmp/c --rerun-corpus": "-test.run ^TestSweep$ -test.v -sweep 100 -sweep.start 1 -sweep.strategy guided -sweep.corpus /tmp/c -sweep.rerun",
	}
	checkToolArgs(t, good)
	tree, both, holdOnly, empty := fakeTree(t), corpusDir(t, "swarm", "plain", "hold"), corpusDir(t, "swarm", "hold"), t.TempDir()
	gate := "gate --kubernetes " + tree
	for _, line := range []string{gate + " --guided 50", gate + " --guided 50 --corpus " + both,
		gate + " --guided 5 --modes hold --corpus " + holdOnly, gate + " --guided 5 --scenario swarm --corpus " + both} {
		if _, err := parse(strings.Fields(line), io.Discard); err != nil {
			t.Errorf("%q: %v", line, err)
		}
	}
	bad := map[string]string{
		"replay --scenario swarm --input pg1.nope":                     "--input: not a guided input",
		"replay --scenario swarm --seed 1 --input " + token:            "takes --seed or --input, not both",
		"shrink --scenario swarm":                                      "needs --seed N (a non-negative integer) or --input TOKEN",
		"run --input " + token:                                         "--input is not a flag of run (it is for replay and shrink)",
		"run --guided 5":                                               "--guided is not a flag of run (it is for gate and mutation)",
		"replay --scenario swarm --seed 1 --rerun-corpus":              "--rerun-corpus is not a flag of replay (it is for run)",
		gate + " --strategy guided":                                    "--strategy is not a flag of gate (it is for run)",
		"replay --scenario swarm --seed 1 --corpus " + both:            "--corpus is not a flag of replay (it is for run, gate and mutation)",
		"run --strategy guided --rerun-corpus":                         "--rerun-corpus needs --strategy guided --corpus DIR",
		gate + " --guided -1":                                          "--guided must not be negative",
		gate + " --corpus " + both:                                     "--corpus needs --guided N",
		"gate --mutants --guided 5":                                    "--guided is for gating a --kubernetes tree, not --mutants",
		gate + " --guided 5 --corpus " + empty:                         "no corpus of the gate's families in " + filepath.Join(empty, "plain"),
		gate + " --guided 5 --corpus " + holdOnly:                      "realrun run --strategy guided --corpus " + holdOnly + " --seeds 20000)",
		gate + " --guided 5 --modes plain,hold --corpus " + both:       "",
		gate + " --guided 5 --scenario swarm-restart --corpus " + both: "no corpus of the gate's families",
	}
	wantParse(t, bad)
}

// guidedGate is a fake of both sides' sweeps for the guided tier: the
// candidate's loop finds GA S11 in runs 3 and 4 and, its regression,
// UNEXPLAINED K5 in run 4 (hold swarm-restart); the base's runs of the
// same inputs find GA S11 only, and its seeds GH K5 at hold swarm-restart
// seed 4, which the candidate lacks (a fix).
type guidedGate struct {
	asked []string // side tier modes seeds corpus-files inputs file
}

func (p *guidedGate) sweep(sd side, t tier, file string) (map[runKey][]string, error) {
	corpus := "-"
	if t.Corpus != "" {
		var files []string
		fs.WalkDir(os.DirFS(t.Corpus), ".", func(path string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				files = append(files, path)
			}
			return err
		})
		corpus = strings.Join(files, ",")
	}
	p.asked = append(p.asked, fmt.Sprintf("%s %s %s %d %s %s %s", sd.bin, t.Name, t.Modes, t.Seeds, corpus,
		cmpOr(filepath.Base(t.Inputs), "-"), filepath.Base(file)))
	ga, k5 := runKey{"swarm-restart", 3, true, "pg1.a"}, runKey{"swarm-restart", 4, true, "pg1.b"}
	switch {
	case !isGuided(t) && sd.bin == "base":
		return map[runKey][]string{{Family: "swarm-restart", Seed: 4, Hold: true}: {"GH K5"}}, nil
	case !isGuided(t):
		return nil, nil
	case sd.bin == "candidate":
		out := map[runKey][]string{ga: {"GA S11"}, k5: {"GA S11", "UNEXPLAINED K5"}}
		b, _ := json.Marshal([]gateRun{{Family: ga.Family, Seed: 3, Hold: true, Keys: out[ga], Input: ga.Input}})
		return out, os.WriteFile(file, b, 0o644)
	}
	if t.Inputs == "" {
		return nil, errors.New("the base's guided sweep got no inputs")
	}
	return map[runKey][]string{ga: {"GA S11"}, k5: {"GA S11", "GC S11"}}, nil
}

func cmpOr(a, b string) string {
	if a == "." || a == "" {
		return b
	}
	return a
}

// TestGateGuidedTier: with --guided the candidate's loop runs after the
// base's seeds and before the base's runs of its inputs, which read the
// candidate's run list; the loop gets its own copy of --corpus, DIR is
// left as it was, a copy an earlier gate left is replaced; the guided
// regression is tagged guided and reproduced by its input; the base's
// extra key on a guided input is no fix, the seed's is.
func TestGateGuidedTier(t *testing.T) {
	dir := corpusDir(t, "swarm-restart", "hold")
	before := treeSum(t, dir)
	o, err := parse([]string{"gate", "--kubernetes", fakeTree(t), "--seeds", "20", "--modes", "hold", "--guided", "500", "--corpus", dir}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	stale := filepath.Join(out, "guided-corpus", "hold", "stale.corpus")
	os.MkdirAll(filepath.Dir(stale), 0o755)
	os.WriteFile(stale, []byte("from an earlier gate\n"), 0o644)
	p := &guidedGate{}
	var table strings.Builder
	g := gate{o: o, outDir: out, stdout: &table, sweep: p.sweep, shrink: func([]change, side) {}}
	rep := newReport(o)
	if err := g.judge(&rep, side{bin: "base"}, side{bin: "candidate"}); !errors.Is(err, errFailed) {
		t.Fatalf("judge: %v, want the gate to fail", err)
	}
	wantAsked := []string{"base shallow hold 20 - - base-runs.json",
		"candidate shallow hold 20 - - candidate-runs.json",
		"candidate guided hold 500 hold/swarm-restart.corpus - candidate-guided-runs.json",
		"base guided hold 500 - candidate-guided-runs.json base-guided-runs.json"}
	if !slices.Equal(p.asked, wantAsked) {
		t.Errorf("sweeps\n%q, want\n%q", p.asked, wantAsked)
	}
	if treeSum(t, dir) != before {
		t.Errorf("--corpus %s was written", dir)
	}
	if len(rep.Regressions) != 1 || len(rep.Fixes) != 1 {
		t.Fatalf("regressions %+v, fixes %+v; want one of each", rep.Regressions, rep.Fixes)
	}
	r, f := rep.Regressions[0], rep.Fixes[0]
	if r.Tier != "guided" || r.Seed != 4 || r.Key != "UNEXPLAINED K5" || !strings.HasSuffix(r.Reproduce, "--scenario swarm-restart --input pg1.b --hold") {
		t.Errorf("regression %+v", r)
	}
	if f.Tier != "shallow" || f.Key != "GH K5" || f.Input != "" {
		t.Errorf("fix %+v (the base's GC S11 on a guided input is no fix)", f)
	}
	n := len(familyNames())
	for _, line := range []string{fmt.Sprintf("guided:  %d families × 500 runs (loop seed 1, the corpora of %s first) × modes hold = %d runs on the candidate", n, dir, n*500),
		"guided  hold  swarm-restart                    UNEXPLAINED K5            1      run 4  realrun replay"} {
		if !strings.Contains(table.String(), line) {
			t.Errorf("the table lacks %q:\n%s", line, table.String())
		}
	}
}

// treeSum is a digest of every file under dir, names and bytes.
func treeSum(t *testing.T, dir string) string {
	h := sha256.New()
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		fmt.Fprintf(h, "%s %d %x\n", path, len(b), sha256.Sum256(b))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%x", h.Sum(nil))
}

// TestGateGuidedTierEndToEnd: the pinned release's test binary on both
// sides, a corpus grown on it first (30 guided runs of hold
// swarm-restart), and the candidate's runs with a driver bug planted
// (admit-in-shutdown, as TestGateDeepTierEndToEnd). Seeds 1–5 alone pass
// the candidate; the guided tier, the corpus run first, fails it, every
// regression tagged guided, and the first one's input, run again alone on
// the candidate, gives its finding again. The base against itself passes, and the
// corpus directory is never written. Skipped in -short (it builds the
// test binary).
func TestGateGuidedTierEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the realkubelet test binary")
	}
	mod, s, bin, planted := plantedBinaries(t)
	corpus := t.TempDir()
	grow := exec.Command(bin, "-test.run", "^TestSweep$", "-sweep", "30", "-sweep.family", "swarm-restart", "-sweep.hold",
		"-sweep.strategy", "guided", "-sweep.corpus", corpus)
	grow.Dir, grow.Env = mod, s.GoEnv()
	if out, err := grow.CombinedOutput(); err != nil {
		t.Fatalf("growing the corpus on the base: %v\n%s", err, out)
	}
	before := treeSum(t, corpus)
	judge := func(cand string, guidedRuns string) ([]change, error) {
		args := []string{"gate", "--kubernetes", fakeTree(t), "--scenario", "swarm-restart", "--modes", "hold", "--seeds", "5"}
		if guidedRuns != "" {
			args = append(args, "--guided", guidedRuns, "--corpus", corpus)
		}
		o, err := parse(args, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		g := gate{o: o, outDir: t.TempDir(), stdout: io.Discard, shrink: func([]change, side) {},
			sweep: func(sd side, t tier, file string) (map[runKey][]string, error) {
				return sd.sweep(context.Background(), t, mod, file, o.hang)
			}}
		rep := newReport(o)
		err = g.judge(&rep, side{slot: s, bin: bin}, side{slot: s, bin: cand})
		return rep.Regressions, err
	}
	if regs, err := judge(planted, ""); err != nil || len(regs) > 0 {
		t.Fatalf("seeds 1-5 alone: %v, regressions %+v; want a pass", err, regs)
	}
	regs, err := judge(planted, "30")
	if !errors.Is(err, errFailed) || len(regs) == 0 {
		t.Fatalf("with the guided tier: %v, %d regressions; want a failure", err, len(regs))
	}
	for _, c := range regs {
		if c.Tier != "guided" || c.Input == "" || !strings.Contains(c.Reproduce, "--input "+c.Input) {
			t.Errorf("regression %+v: want a guided one, reproduced by its input", c)
		}
	}
	// The first regression's input alone, run again on the candidate (the
	// plant reaches TestGateSweep only, so not through TestReplaySeed).
	one, _ := json.Marshal([]gateRun{{Family: regs[0].Family, Seed: regs[0].Seed, Hold: true, Keys: []string{regs[0].Key}, Input: regs[0].Input}})
	in, again := filepath.Join(t.TempDir(), "in.json"), filepath.Join(t.TempDir(), "again.json")
	if err := os.WriteFile(in, one, 0o644); err != nil {
		t.Fatal(err)
	}
	rerun := exec.Command(planted, "-test.run", "^TestGateSweep$", "-gate.inputs", in, "-gate.out", again)
	rerun.Dir, rerun.Env = mod, s.GoEnv()
	if out, err := rerun.CombinedOutput(); err != nil {
		t.Fatalf("running the input again: %v\n%s", err, out)
	}
	var got []gateRun
	if b, err := os.ReadFile(again); err != nil || json.Unmarshal(b, &got) != nil || len(got) != 1 || !slices.Contains(got[0].Keys, regs[0].Key) {
		t.Errorf("%s run %d's input run again on the candidate: %+v (%v), want %s", regs[0].Family, regs[0].Seed, got, err, regs[0].Key)
	}
	if regs, err := judge(bin, "30"); err != nil || len(regs) > 0 {
		t.Errorf("the base against itself with the guided tier: %v, regressions %+v", err, regs)
	}
	if treeSum(t, corpus) != before {
		t.Errorf("the gate wrote into --corpus %s", corpus)
	}
}
