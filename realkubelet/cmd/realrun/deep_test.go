package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/podsim/podsim/realdriver"
	"github.com/podsim/podsim/realkubelet/cmd/realrun/scratch"
)

// TestDeepFlag: --deep FAMILY/MODE:SEEDS, comma-separated or repeated,
// becomes deep tiers over the seeds the shallow tier does not run; bad
// values are refused with one line (exit 2 in main).
func TestDeepFlag(t *testing.T) {
	tree := fakeTree(t)
	gate := []string{"gate", "--kubernetes", tree}
	good := []struct {
		args  []string
		tiers string // the deep tiers: family/modes:first..last
	}{
		{[]string{"--deep", "swarm-restart/hold:10000", "--seeds", "200"}, "swarm-restart/hold:201..10000"},
		{[]string{"--deep", "swarm-restart/hold:10000,swarm/plain:500"}, "swarm-restart/hold:101..10000 swarm/plain:101..500"},
		{[]string{"--deep", "swarm-restart/hold:300", "--deep", "api-shapes/plain:101"}, "swarm-restart/hold:101..300 api-shapes/plain:101..101"},
		{[]string{"--deep", "swarm-restart/hold:50", "--modes", "plain"}, "swarm-restart/hold:1..50"},
		{[]string{"--deep", "swarm-restart/hold:50", "--scenario", "swarm"}, "swarm-restart/hold:1..50"},
		{[]string{"--deep", "swarm/hold:50", "--scenario", "swarm", "--seeds", "20", "--start", "5"}, "swarm/hold:25..54"},
		{[]string{"--deep", ""}, ""},
		{nil, ""},
	}
	for _, c := range good {
		o, err := parse(append(gate, c.args...), io.Discard)
		if err != nil {
			t.Errorf("%q: %v", c.args, err)
			continue
		}
		var got []string
		for _, tr := range gateTiers(o)[1:] {
			got = append(got, fmt.Sprintf("%s/%s:%d..%d", tr.Family, tr.Modes, tr.Start, tr.last()))
		}
		if strings.Join(got, " ") != c.tiers {
			t.Errorf("%q: deep tiers %q, want %q", c.args, got, c.tiers)
		}
	}
	bad := map[string]string{
		"swarm-restart/hold":                            "want FAMILY/MODE:SEEDS",
		"swarm-restart:100":                             "want FAMILY/MODE:SEEDS",
		"swarm-restart/hold:10000,":                     "want FAMILY/MODE:SEEDS",
		"swam-restart/hold:100":                         `unknown family "swam-restart"`,
		"vk-swarm/hold:100":                             `unknown family "vk-swarm"`,
		"all/hold:100":                                  `unknown family "all"`,
		"swarm-restart/fast:100":                        `unknown mode "fast" (want plain or hold)`,
		"swarm-restart/:100":                            `unknown mode ""`,
		"swarm-restart/hold:0":                          "is not a positive number",
		"swarm-restart/hold:-5":                         "is not a positive number",
		"swarm-restart/hold:1e4":                        "is not a positive number",
		"swarm-restart/hold:100,swarm-restart/hold:200": "swarm-restart/hold is given twice",
		"swarm-restart/hold:100":                        "not deeper than the other runs (--seeds 100)",
		"swarm-restart/hold:99":                         "not deeper",
	}
	for v, want := range bad {
		_, err := parse(append(gate, "--deep", v), io.Discard)
		if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("--deep %q: error %v, want one line containing %q", v, err, want)
		}
	}
	if _, err := parse([]string{"gate", "--mutants", "--deep", "swarm-restart/hold:1000"}, io.Discard); err == nil || !strings.Contains(err.Error(), "not --mutants") {
		t.Errorf("--mutants --deep: %v, want a refusal", err)
	}
	if _, err := parse([]string{"gate", "--kubernetes", tree, "--deep", "swarm/hold:5", "--deep", "swarm/hold:9"}, io.Discard); err == nil || !strings.Contains(err.Error(), "given twice") {
		t.Errorf("a repeated --deep of one family and mode: %v, want a refusal", err)
	}
}

// plantedGate is a fake pair of sweeps for the gate: both sides find GH in
// hold swarm-restart seed 4,646 (a deep seed), and the candidate also an
// unexplained S7 at hold swarm-restart seed 1,400 — past the shallow
// tier's 200 seeds, as session 23's S7s were — and a G1 at swarm seed 7.
type plantedGate struct {
	asked []string // side tier family modes first..last file, per sweep
}

func (p *plantedGate) sweep(sd side, t tier, file string) (map[runKey][]string, error) {
	p.asked = append(p.asked, fmt.Sprintf("%s %s %s %s %d..%d %s", sd.bin, t.Name, t.Family, t.Modes, t.Start, t.last(), filepath.Base(file)))
	runs := map[runKey][]string{{Family: "swarm-restart", Seed: 4646, Hold: true}: {"GH K5"}}
	if sd.bin == "candidate" {
		runs[runKey{Family: "swarm-restart", Seed: 1400, Hold: true}] = []string{"UNEXPLAINED S7"}
		runs[runKey{Family: "swarm", Seed: 7}] = []string{"G1 S14"}
	}
	out := map[runKey][]string{}
	for k, keys := range runs {
		if t.covers(k.Family, realdriver.ModeName(k.Hold), k.Seed) {
			out[k] = keys
		}
	}
	return out, nil
}

// TestGateDeepTier: a regression that only the deep tier's seeds show
// fails the gate, is shrunk like the others, and the report (JSON and
// table) says it came from the deep tier; without --deep the same
// candidate passes but for its shallow regression, which is tagged
// shallow. Each side sweeps each tier once, into its own run list.
func TestGateDeepTier(t *testing.T) {
	tree := fakeTree(t)
	for _, deep := range []bool{true, false} {
		args := []string{"gate", "--kubernetes", tree, "--seeds", "200", "--scenario", "all"}
		if deep {
			args = append(args, "--deep", "swarm-restart/hold:10000")
		}
		o, err := parse(args, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		p := &plantedGate{}
		var shrunk []string
		var table strings.Builder
		g := gate{o: o, outDir: t.TempDir(), stdout: &table, sweep: p.sweep, shrink: func(regs []change, sd side) {
			for i, c := range regs {
				shrunk = append(shrunk, fmt.Sprintf("%s %s %d", sd.bin, c.Family, c.Seed))
				regs[i].Script = "create a"
			}
		}}
		rep := newReport(o)
		err = g.judge(&rep, side{bin: "base"}, side{bin: "candidate"})
		if !errors.Is(err, errFailed) {
			t.Fatalf("deep %v: %v, want the gate to fail", deep, err)
		}
		var got []string
		for _, c := range rep.Regressions {
			got = append(got, fmt.Sprintf("%s %s %d %s %s", c.Tier, c.Family, c.Seed, c.Mode, c.Key))
		}
		want := "shallow swarm 7 plain G1 S14"
		if deep {
			want = "deep swarm-restart 1400 hold UNEXPLAINED S7;" + want
		}
		if strings.Join(got, ";") != want {
			t.Errorf("deep %v: regressions %q, want %q", deep, got, want)
		}
		wantAsked := "base shallow  plain,hold 1..200 base-runs.json;candidate shallow  plain,hold 1..200 candidate-runs.json"
		wantShrunk := "candidate swarm 7"
		if deep {
			wantAsked = "base shallow  plain,hold 1..200 base-runs.json;base deep swarm-restart hold 201..10000 base-deep-swarm-restart-hold-runs.json;" +
				"candidate shallow  plain,hold 1..200 candidate-runs.json;candidate deep swarm-restart hold 201..10000 candidate-deep-swarm-restart-hold-runs.json"
			wantShrunk = "candidate swarm-restart 1400;" + wantShrunk
		}
		if strings.Join(p.asked, ";") != wantAsked {
			t.Errorf("deep %v: sweeps\n%q, want\n%q", deep, p.asked, wantAsked)
		}
		if strings.Join(shrunk, ";") != wantShrunk {
			t.Errorf("deep %v: shrunk %q, want %q", deep, shrunk, wantShrunk)
		}
		checkDeepReport(t, deep, g.outDir, table.String())
	}
}

// checkDeepReport: gate.json lists the tiers and tags each regression
// with its tier; the table has a tier column and a line per tier.
func checkDeepReport(t *testing.T, deep bool, outDir, table string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(outDir, "gate.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		RunsPerSide int `json:"runs_per_side"`
		Tiers       []tierReport
		Regressions []map[string]any
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	shallow := len(familyNames()) * 200 * 2
	runs, tiers := shallow, 1
	if deep {
		runs, tiers = shallow+9800, 2
	}
	if rep.RunsPerSide != runs || len(rep.Tiers) != tiers || rep.Regressions[0]["tier"] == nil {
		t.Errorf("deep %v: gate.json: %d runs per side, tiers %+v, first regression %v", deep, rep.RunsPerSide, rep.Tiers, rep.Regressions[0])
	}
	if want := (tierReport{Tier: "deep", Family: "swarm-restart", Modes: []string{"hold"}, FirstSeed: 201, LastSeed: 10000, RunsPerSide: 9800}); deep && fmt.Sprint(rep.Tiers[1]) != fmt.Sprint(want) {
		t.Errorf("gate.json's deep tier: %+v", rep.Tiers[1])
	}
	for _, line := range []string{fmt.Sprintf("shallow: %d families × seeds 1..200 × modes plain,hold = %d runs per side", len(familyNames()), shallow),
		"shallow plain swarm", "(plain, shallow tier)"} {
		if !strings.Contains(table, line) {
			t.Errorf("deep %v: the table lacks %q:\n%s", deep, line, table)
		}
	}
	for _, line := range []string{"deep:    swarm-restart × seeds 201..10000 × modes hold = 9800 runs per side",
		"deep    hold  swarm-restart                    UNEXPLAINED S7", "(hold, deep tier)"} {
		if strings.Contains(table, line) != deep {
			t.Errorf("deep %v: the table has %q: %v\n%s", deep, line, !deep, table)
		}
	}
}

// TestGateDeepTierEndToEnd: the pinned release's test binary on both
// sides, the candidate's runs with a driver bug planted (admission lets
// pods in during the node shutdown, plant.go; its first unexplained
// finding in hold swarm-restart is at seed 11). A shallow tier of seeds
// 1–5 passes the candidate; the deep tier swarm-restart/hold:12 (seeds
// 6–12) fails it, at seed 11, tagged deep. Builds the pinned test binary
// in a scratch slot (a link, with the build cache warm): skipped in -short.
func TestGateDeepTierEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the realkubelet test binary")
	}
	mod, s, bin, planted := plantedBinaries(t)
	tree := fakeTree(t)
	for _, deep := range []bool{false, true} {
		args := []string{"gate", "--kubernetes", tree, "--scenario", "swarm-restart", "--modes", "hold", "--seeds", "5"}
		if deep {
			args = append(args, "--deep", "swarm-restart/hold:12")
		}
		o, err := parse(args, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		var out strings.Builder
		g := gate{o: o, outDir: t.TempDir(), stdout: &out,
			sweep: func(sd side, t tier, file string) (map[runKey][]string, error) {
				return sd.sweep(context.Background(), t, mod, file, o.hang)
			},
			shrink: func([]change, side) {}}
		rep := newReport(o)
		err = g.judge(&rep, side{slot: s, bin: bin}, side{slot: s, bin: planted})
		var got []string
		for _, c := range rep.Regressions {
			got = append(got, fmt.Sprintf("%s %d %s", c.Tier, c.Seed, c.Key))
		}
		switch {
		case !deep && (err != nil || len(got) > 0):
			t.Errorf("shallow only (seeds 1-5): %v, regressions %q; want a pass", err, got)
		case deep && (!errors.Is(err, errFailed) || !slices.Contains(got, "deep 11 UNEXPLAINED K5") || slices.ContainsFunc(got, isShallow)):
			t.Errorf("with the deep tier (seeds 6-12): %v, regressions %q; want a failure at deep seed 11 (UNEXPLAINED K5)", err, got)
		}
	}
}

func isShallow(c string) bool { return strings.HasPrefix(c, "shallow ") }

// plantedBinaries builds the pinned release's test binary in a scratch
// slot (a link, with the build cache warm) and writes a wrapper that runs
// it with a driver bug planted in every run (-gate.plant
// admit-in-shutdown): the module's directory, the slot, the binary and
// the wrapper.
func plantedBinaries(t *testing.T) (mod string, s scratch.Slot, bin, planted string) {
	t.Helper()
	mod, err := moduleDir()
	if err != nil {
		t.Fatal(err)
	}
	if s, err = scratch.Prepare(t.TempDir(), "pinned", "", mod); err != nil {
		t.Fatal(err)
	}
	if bin, err = s.Ready(mod, false); err != nil {
		t.Fatal(err)
	}
	planted = filepath.Join(t.TempDir(), "planted")
	script := "#!/bin/sh\nexec " + bin + " \"$@\" -gate.plant admit-in-shutdown\n"
	if err := os.WriteFile(planted, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return mod, s, bin, planted
}
