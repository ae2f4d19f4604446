package main

import (
	"cmp"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/podsim/podsim/realkubelet/cmd/realrun/toolrun"
)

// dyingSweep is a fake of the gate's sweeps whose candidate (or, with
// baseDies, base) dies: a panic after seed 3, or a run past --hang.
type dyingSweep struct {
	hung, baseDies bool
	last           string // the last beat: a progress line if ""
}

func (d dyingSweep) sweep(sd side, t tier, file string) (map[runKey][]string, error) {
	if sd.bin == "base" && !d.baseDies {
		return map[runKey][]string{{Family: "swarm", Seed: 2}: {"GA S1"}}, nil
	}
	out := toolrun.Outcome{Last: cmp.Or(d.last, "gate: 3 of 10 runs, 0 with findings (last: swarm plain seed 3)"), Err: errors.New("exit status 2"),
		Tail: []string{"panic: runtime error: invalid memory address or nil pointer dereference"}, Hung: d.hung}
	return nil, &toolrun.Died{Side: sd.bin, Out: out, Hang: 30 * time.Second}
}

// TestGateFailsWhenTheCandidateDies: a candidate whose sweep panics or
// hangs where the base's ended fails the gate (exit 1), and the table and
// gate.json say why and in or after which run (a seed's run named as it
// started comes with the command that replays it); a base that dies is an
// error of the set-up (exit 2), not a verdict.
func TestGateFailsWhenTheCandidateDies(t *testing.T) {
	tree := fakeTree(t)
	o, err := parse(strings.Fields("gate --kubernetes "+tree+" --scenario swarm --seeds 5 --modes plain"), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		d    dyingSweep
		want string
	}{
		{dyingSweep{}, "sweep on candidate did not complete (the run after swarm plain seed 3): panic: runtime error: invalid memory address or nil pointer dereference"},
		{dyingSweep{hung: true}, "sweep on candidate: a run did not end within 30s (the run after swarm plain seed 3)"},
		{dyingSweep{hung: true, last: "gate: ran swarm plain run 8"}, "sweep on candidate: a run did not end within 30s (the run after swarm plain run 8)"},
		{dyingSweep{last: "gate: run swarm plain run 12 input g1.abc"}, "sweep on candidate did not complete (in swarm plain run 12): panic: runtime error: " +
			"invalid memory address or nil pointer dereference; realrun replay --kubernetes " + tree + " --scenario swarm --input g1.abc"},
		{dyingSweep{last: "gate: run swarm hold seed 4"}, "sweep on candidate did not complete (in swarm hold seed 4): panic: runtime error: " +
			"invalid memory address or nil pointer dereference; realrun replay --kubernetes " + tree + " --scenario swarm --seed 4 --hold"},
	} {
		var table strings.Builder
		g := gate{o: o, outDir: t.TempDir(), stdout: &table, sweep: c.d.sweep, shrink: func([]change, side) { t.Error("shrank a dead sweep") }}
		rep := newReport(o)
		if err := g.judge(&rep, side{bin: "base"}, side{bin: "candidate"}); !errors.Is(err, errFailed) {
			t.Fatalf("judge: %v, want a failure", err)
		}
		if rep.Died != c.want || rep.Verdict != "fail" || len(rep.Fixes) != 0 {
			t.Errorf("died %q, verdict %s, %d fixes\nwant died %q, fail, no fixes", rep.Died, rep.Verdict, len(rep.Fixes), c.want)
		}
		if !strings.Contains(table.String(), "THE CANDIDATE'S SWEEP DIED where the base's ended (no run compared): "+c.want) {
			t.Errorf("table:\n%s", table.String())
		}
		if b, err := os.ReadFile(filepath.Join(g.outDir, "gate.json")); err != nil || !strings.Contains(string(b), `"candidate_died"`) {
			t.Errorf("gate.json: %v\n%s", err, b)
		}
	}
	g := gate{o: o, outDir: t.TempDir(), stdout: io.Discard, sweep: dyingSweep{baseDies: true}.sweep, shrink: func([]change, side) {}}
	rep := newReport(o)
	if err := g.judge(&rep, side{bin: "base"}, side{bin: "candidate"}); err == nil || errors.Is(err, errFailed) || !strings.Contains(err.Error(), "sweep on base did not complete") {
		t.Errorf("a base that dies: %v, want an error that is not a verdict", err)
	}
}

// TestGateJudgesADeadGuidedRunOnTheBase: a candidate that dies in a
// guided run (an input the base never ran) fails the gate only if the
// base's run of the same input ends; if the base dies on it too, the gate
// cannot judge the candidate (exit 2, not a verdict).
func TestGateJudgesADeadGuidedRunOnTheBase(t *testing.T) {
	o, err := parse(strings.Fields("gate --kubernetes "+fakeTree(t)+" --scenario swarm --seeds 5 --modes plain --guided 10"), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	for _, baseDiesToo := range []bool{false, true} {
		var asked []string
		sweep := func(sd side, tr tier, file string) (map[runKey][]string, error) {
			asked = append(asked, sd.bin+" "+tr.Name+" "+filepath.Base(tr.Inputs))
			last := "gate: run swarm plain run 7 input g1.abc"
			dies := &toolrun.Died{Side: sd.bin, Out: toolrun.Outcome{Last: last, Tail: []string{"panic: boom"}, Err: errors.New("exit status 2")}}
			switch {
			case sd.bin == "candidate" && isGuided(tr), sd.bin == "base" && tr.Inputs != "" && baseDiesToo:
				return nil, dies
			}
			return map[runKey][]string{}, nil
		}
		g := gate{o: o, outDir: t.TempDir(), stdout: io.Discard, sweep: sweep, shrink: func([]change, side) {}}
		rep := newReport(o)
		err := g.judge(&rep, side{bin: "base"}, side{bin: "candidate"})
		want := []string{"base shallow .", "candidate shallow .", "candidate guided .", "base guided died-input.json"}
		if !slices.Equal(asked, want) {
			t.Errorf("sweeps %q, want %q", asked, want)
		}
		switch {
		case !baseDiesToo && (!errors.Is(err, errFailed) || !strings.Contains(rep.Died, "(in swarm plain run 7): panic: boom; the base's run of the same input ends; realrun replay")):
			t.Errorf("the base ends: %v, died %q; want a failure naming the run", err, rep.Died)
		case baseDiesToo && (err == nil || errors.Is(err, errFailed) || !strings.Contains(err.Error(), "the base dies on the same input too")):
			t.Errorf("the base dies too: %v; want an error that is not a verdict", err)
		}
	}
}

// TestGateComparesTheTiersBeforeTheDeath: a candidate that finishes the
// shallow tier and dies in the deep one fails the gate for the death and
// for the shallow tier's regressions, compared and shrunk as usual; the
// deep tier is not compared (a key the base has there is no fix: the
// candidate's run list of it is cut short).
func TestGateComparesTheTiersBeforeTheDeath(t *testing.T) {
	o, err := parse(strings.Fields("gate --kubernetes "+fakeTree(t)+" --scenario swarm --seeds 5 --modes plain --deep swarm/plain:20"), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	sweep := func(sd side, tr tier, file string) (map[runKey][]string, error) {
		switch {
		case sd.bin == "base" && tr.Name == "shallow":
			return map[runKey][]string{{Family: "swarm", Seed: 2}: {"GA S1"}, {Family: "swarm", Seed: 4}: {"GB S2"}}, nil
		case sd.bin == "base":
			return map[runKey][]string{{Family: "swarm", Seed: 12}: {"GC S3"}}, nil
		case tr.Name == "shallow": // seed 2 regressed, seed 4 fixed
			return map[runKey][]string{{Family: "swarm", Seed: 2}: {"GA S1", "UNEXPLAINED S9"}}, nil
		}
		out := toolrun.Outcome{Last: "gate: run swarm plain seed 9", Err: errors.New("exit status 2"), Tail: []string{"panic: boom"}}
		return nil, &toolrun.Died{Side: sd.bin, Out: out, Hang: 30 * time.Second}
	}
	var shrunk []change
	var table strings.Builder
	g := gate{o: o, outDir: t.TempDir(), stdout: &table, sweep: sweep, shrink: func(cs []change, _ side) { shrunk = cs }}
	rep := newReport(o)
	if err := g.judge(&rep, side{bin: "base"}, side{bin: "candidate"}); !errors.Is(err, errFailed) {
		t.Fatalf("judge: %v, want a failure", err)
	}
	regs, fixes := rep.Regressions, rep.Fixes
	if len(regs) != 1 || regs[0].Seed != 2 || regs[0].Key != "UNEXPLAINED S9" || regs[0].Tier != "shallow" || len(shrunk) != 1 {
		t.Errorf("regressions %+v, shrunk %d; want seed 2's UNEXPLAINED S9, shallow, shrunk", regs, len(shrunk))
	}
	if len(fixes) != 1 || fixes[0].Seed != 4 {
		t.Errorf("fixes %+v, want seed 4's only (the deep tier's seed 12 was not compared)", fixes)
	}
	if !strings.Contains(rep.Died, "(in swarm plain seed 9): panic: boom") || !slices.Equal(rep.ComparedBeforeDeath, []string{"shallow"}) {
		t.Errorf("died %q, compared %q", rep.Died, rep.ComparedBeforeDeath)
	}
	if !strings.Contains(table.String(), "THE CANDIDATE'S SWEEP DIED where the base's ended (the tiers it finished before, compared above: shallow)") ||
		!strings.Contains(table.String(), "REGRESSIONS (new on the candidate): 1") {
		t.Errorf("table:\n%s", table.String())
	}
}
