package realdriver

import (
	"cmp"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/podsim/podsim/plan"
)

// The differential gate's tool, one for every real target (realrun gate
// runs it on a base build and on a candidate build, once per tier, and
// compares the two run lists run by run): the runs of a seed range, of
// the guided loop, or of another build's guided inputs, each run with
// findings written as a GateRun.

// GateRun is one run's outcome for the differential gate: the distinct
// finding keys (GateKey) it produced.
type GateRun struct {
	Family string   `json:"family"`
	Seed   uint64   `json:"seed"`
	Hold   bool     `json:"hold"`
	Keys   []string `json:"keys"`
	// Input is a guided run's input token (guided.Input.Token), its Seed
	// then the run's index in the loop; "" for a seed's run.
	Input string `json:"input,omitempty"`
}

// GateKey is a finding's key: "CLASS CHECK", UNEXPLAINED for no class.
// realrun splits it at the first space to shrink a regression.
func GateKey(class, check string) string { return ClassLabel(class) + " " + check }

// GateKeys are the findings' keys, sorted, once each; key gives a
// finding's class and check (the kubelet's invariant).
func GateKeys[F any](findings []F, key func(F) (class, check string)) []string {
	var out []string
	for _, f := range findings {
		out = append(out, GateKey(key(f)))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// GateTarget is what the gate's tool runs on one target. Each function
// returns a run's sorted, distinct finding keys; mode is one of Modes.
type GateTarget struct {
	Families []plan.Family
	Modes    []string // the wake-up modes the target knows, e.g. plain and hold
	Seed     func(f plan.Family, mode string, seed uint64) []string
	// Guided makes the target's guided loop of f in mode, calling start
	// before every run (its index in the loop and the token of the input
	// it is given) and emit after it (its index, the token of its input as
	// the run drew it, and its keys).
	Guided func(f plan.Family, mode string, start func(index uint64, token string), emit func(index uint64, token string, keys []string))
	// Input runs one guided input again (a token Guided emitted), or says
	// what is wrong with the token.
	Input func(f plan.Family, mode string, token string) ([]string, error)
}

// GateFlags are the gate tool's flags; seeds, first seed and family are
// the target's sweep flags.
type GateFlags struct {
	out, modes, strategy, inputs *string
	progress                     *int      // every this many runs, a progress line on log (realrun's log shows them)
	log                          io.Writer // nil: stderr
	beats                        *bool     // name each run on log as it starts (where known) and ends: realrun's hang watch
}

// NewGateFlags registers the gate tool's flags; modes is -gate.modes's
// default.
func NewGateFlags(modes string) GateFlags {
	return GateFlags{
		out:      flag.String("gate.out", "", "TestGateSweep: write the runs with findings and their keys here (JSON)"),
		modes:    flag.String("gate.modes", modes, "TestGateSweep: wake-up modes, comma-separated"),
		progress: flag.Int("gate.progress", 0, "TestGateSweep: every this many runs, a progress line on stderr (0: none)"),
		strategy: flag.String("gate.strategy", "random", "TestGateSweep: random (seeds -sweep.start on) or guided "+
			"(-sweep runs per family and mode of the guided loop, loop seed -sweep.start; with -sweep.corpus and -sweep.rerun its kept entries first)"),
		inputs: flag.String("gate.inputs", "", "TestGateSweep: run again, each in its own family and mode, the guided runs of "+
			"this -gate.out file (another build's guided sweep) instead of sweeping"),
		beats: flag.Bool("gate.beats", false, "TestGateSweep: a line on stderr as each run starts (\"gate: run FAMILY MODE seed S\", "+
			"\"gate: run FAMILY MODE run N input TOKEN\") and ends (\"gate: ran ...\"), for a watch that stops a run that hangs and names it"),
	}
}

// Modes are -gate.modes's modes (the mutation sweep reads them too).
func (g GateFlags) Modes() []string { return strings.Split(*g.modes, ",") }

// Sweep is TestGateSweep: seeds start.. (or, -gate.strategy guided, that
// many runs of the loop) of every family of tg (or of only) in each of
// -gate.modes, or with -gate.inputs the guided runs that file lists; the
// runs with findings written to -gate.out as one JSON array.
func (g GateFlags) Sweep(t testing.TB, tg GateTarget, only string, seeds int, start uint64) {
	if *g.out == "" || (seeds == 0 && *g.inputs == "") {
		t.Skip("tool: needs -gate.out and -sweep N (or -gate.inputs FILE)")
	}
	modes := g.Modes()
	for _, m := range modes {
		if !slices.Contains(tg.Modes, m) {
			t.Fatalf("-gate.modes: unknown mode %q (want %s)", m, strings.Join(tg.Modes, " or "))
		}
	}
	var fams []plan.Family
	for _, f := range tg.Families {
		if only == "" || f.Name == only {
			fams = append(fams, f)
		}
	}
	if len(fams) == 0 {
		t.Fatalf("-sweep.family: no family %q on this target", only)
	}
	p := GateProgress{Every: *g.progress, W: cmp.Or[io.Writer](g.log, os.Stderr), Beats: g.beats != nil && *g.beats}
	var runs []GateRun
	switch {
	case *g.inputs != "":
		runs = gateInputs(t, tg, *g.inputs, p)
	case *g.strategy == "guided":
		runs = gateGuided(tg, modes, fams, seeds, p)
	case *g.strategy == "random":
		runs = gateSeeds(tg, modes, fams, seeds, start, p)
	default:
		t.Fatalf("-gate.strategy: unknown strategy %q (want random or guided)", *g.strategy)
	}
	b, err := json.Marshal(runs)
	if err == nil {
		err = os.WriteFile(*g.out, b, 0o644)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// hold is a GateRun's Hold for mode: the kubelet's held wake-ups.
func hold(mode string) bool { return mode == "hold" }

// ModeName names a wake-up mode by its Hold: hold or plain.
func ModeName(hold bool) string {
	if hold {
		return "hold"
	}
	return "plain"
}

// ModeOf names a GateRun's mode.
func ModeOf(r GateRun) string { return ModeName(r.Hold) }

func gateSeeds(tg GateTarget, modes []string, fams []plan.Family, seeds int, start uint64, p GateProgress) []GateRun {
	p.Total = len(modes) * len(fams) * seeds
	var runs []GateRun
	for _, mode := range modes {
		for _, f := range fams {
			for i := range seeds {
				seed := start + uint64(i)
				p.Start(f.Name, mode, seed, "")
				keys := tg.Seed(f, mode, seed)
				if len(keys) > 0 {
					runs = append(runs, GateRun{Family: f.Name, Seed: seed, Hold: hold(mode), Keys: keys})
				}
				p.Ran(f.Name, mode, seed, len(keys) > 0)
			}
		}
	}
	return runs
}

func gateGuided(tg GateTarget, modes []string, fams []plan.Family, runs int, p GateProgress) []GateRun {
	p.Total, p.Unit = len(modes)*len(fams)*runs, "run"
	var out []GateRun
	for _, mode := range modes {
		for _, f := range fams {
			start := func(index uint64, token string) { p.Start(f.Name, mode, index, token) }
			tg.Guided(f, mode, start, func(index uint64, token string, keys []string) {
				if len(keys) > 0 {
					out = append(out, GateRun{Family: f.Name, Seed: index, Hold: hold(mode), Keys: keys, Input: token})
				}
				p.Ran(f.Name, mode, index, len(keys) > 0)
			})
		}
	}
	return out
}

// gateInputs runs again every guided run of file (another build's
// gateGuided), in its own family and mode; the runs with findings, named
// as the file names them.
func gateInputs(t testing.TB, tg GateTarget, file string, p GateProgress) []GateRun {
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var in []GateRun
	if err := json.Unmarshal(b, &in); err != nil {
		t.Fatalf("-gate.inputs %s: %v", file, err)
	}
	p.Total, p.Unit = len(in), "run"
	var runs []GateRun
	for _, r := range in {
		i := slices.IndexFunc(tg.Families, func(f plan.Family) bool { return f.Name == r.Family })
		if i < 0 {
			t.Fatalf("-gate.inputs %s: run %d: no family %q on this target", file, r.Seed, r.Family)
		}
		if !slices.Contains(tg.Modes, ModeOf(r)) {
			t.Fatalf("-gate.inputs %s: %s run %d: no mode %s on this target", file, r.Family, r.Seed, ModeOf(r))
		}
		p.Start(r.Family, ModeOf(r), r.Seed, r.Input)
		keys, err := tg.Input(tg.Families[i], ModeOf(r), r.Input)
		if err != nil {
			t.Fatalf("-gate.inputs %s: %s run %d: %v", file, r.Family, r.Seed, err)
		}
		if len(keys) > 0 {
			runs = append(runs, GateRun{Family: r.Family, Seed: r.Seed, Hold: r.Hold, Keys: keys, Input: r.Input})
		}
		p.Ran(r.Family, ModeOf(r), r.Seed, len(keys) > 0)
	}
	return runs
}

// GateProgress writes the gate tool's progress line every Every runs,
// and with Beats a line as each run starts and ends (counts and names
// only: nothing of the wall clock reaches it).
type GateProgress struct {
	Every, Total, done, found int
	W                         io.Writer
	Unit                      string // what names a run: "seed" ("" too) or "run" (a guided run's index)
	Beats                     bool
}

// Start names a run about to start, with Beats: a seed's, or (token set)
// a guided run's, by its index in the loop and the token of its input (a
// replay of the token runs it).
func (p *GateProgress) Start(family, mode string, seed uint64, token string) {
	if p.Beats {
		fmt.Fprintf(p.W, "gate: %s\n", runBeat(family, mode, p.Unit, seed, token))
	}
}

// runBeat is the line that names a run as it starts: "run FAMILY MODE
// UNIT N" (UNIT "seed" unless given), or a guided run's "run FAMILY MODE
// run N input TOKEN". The gate sweep writes it after "gate: ", the
// mutation sweep as it is; realrun reads both (toolrun.ParseRun).
func runBeat(family, mode, unit string, n uint64, token string) string {
	if token != "" {
		return fmt.Sprintf("run %s %s run %d input %s", family, mode, n, token)
	}
	return fmt.Sprintf("run %s %s %s %d", family, mode, cmp.Or(unit, "seed"), n)
}

// Ran counts one run.
func (p *GateProgress) Ran(family, mode string, seed uint64, found bool) {
	p.done++
	if found {
		p.found++
	}
	switch {
	case p.Every > 0 && (p.done%p.Every == 0 || p.done == p.Total):
		fmt.Fprintf(p.W, "gate: %d of %d runs, %d with findings (last: %s %s %s %d)\n", p.done, p.Total, p.found, family, mode, cmp.Or(p.Unit, "seed"), seed)
	case p.Beats:
		fmt.Fprintf(p.W, "gate: ran %s %s %s %d\n", family, mode, cmp.Or(p.Unit, "seed"), seed)
	}
}
