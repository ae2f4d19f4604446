package realkubelet

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

var (
	gateOut      = flag.String("gate.out", "", "TestGateSweep: write the per-seed finding keys here (JSON)")
	gateModes    = flag.String("gate.modes", "plain,hold", "TestGateSweep: wake-up modes, comma-separated (plain, hold)")
	gateProgress = flag.Int("gate.progress", 0, "TestGateSweep: every this many runs, a progress line on stderr (0: none)")
	gatePlant    = flag.String("gate.plant", "", "TestGateSweep: plant a driver bug in every run (tests of the gate only: "+
		"admit-in-shutdown, whose first unexplained finding in hold swarm-restart is at seed 11)")
	gateStrategy = flag.String("gate.strategy", "random", "TestGateSweep: random (seeds -sweep.start on) or guided "+
		"(-sweep runs per family and mode of the guided loop, loop seed -sweep.start; with -sweep.corpus and -sweep.rerun its kept entries first)")
	gateInputs = flag.String("gate.inputs", "", "TestGateSweep: run again, each in its own family and mode, the guided runs of "+
		"this -gate.out file (another build's guided sweep) instead of sweeping")
)

// gatePlants are the bugs -gate.plant can plant (plant.go).
var gatePlants = map[string]plantedBug{"admit-in-shutdown": plantAdmitInShutdown}

// GateRun is one seed's outcome for the differential gate: the distinct
// finding keys ("CLASS INVARIANT", UNEXPLAINED for no class) it produced.
type GateRun struct {
	Family string   `json:"family"`
	Seed   uint64   `json:"seed"`
	Hold   bool     `json:"hold"`
	Keys   []string `json:"keys"`
	// Input is a guided run's input token (guided.Input.Token), its Seed
	// then the run's index in the loop; "" for a seed's run.
	Input string `json:"input,omitempty"`
}

// GateKeys are r's finding keys, sorted, once each.
func GateKeys(r Result) []string {
	var out []string
	for _, f := range r.Findings {
		class := f.Class
		if class == "" {
			class = "UNEXPLAINED"
		}
		out = append(out, class+" "+f.Invariant)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// gateFamilies are the families the gate sweeps: the kubelet's (only, if
// only is set), the ones realrun gate's report counts. The vk-* families
// are the virtual kubelet's plans (realvk/); on this target they would
// only add runs that the report does not count.
func gateFamilies(only string) []plan.Family {
	var out []plan.Family
	for _, f := range plan.KubeletFamilies() {
		if only == "" || f.Name == only {
			out = append(out, f)
		}
	}
	return out
}

// TestGateFamilies: the gate sweeps exactly the kubelet families, none of
// the virtual kubelet's, and -sweep.family narrows it to one.
func TestGateFamilies(t *testing.T) {
	var want []string
	for _, f := range plan.KubeletFamilies() {
		want = append(want, f.Name)
	}
	var got []string
	for _, f := range gateFamilies("") {
		got = append(got, f.Name)
		if strings.HasPrefix(f.Name, "vk-") {
			t.Errorf("the gate sweeps the virtual kubelet's family %s", f.Name)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("gate families %v, want the kubelet families %v", got, want)
	}
	if len(plan.Families()) == len(want) {
		t.Fatalf("plan.Families() has no family beyond the kubelet's: the check above cannot tell them apart")
	}
	if one := gateFamilies("swarm"); len(one) != 1 || one[0].Name != "swarm" {
		t.Errorf("gateFamilies(swarm) = %v", one)
	}
}

// TestGateSweep is the differential gate's tool (realrun gate runs it on
// the base and on the candidate, once per tier): -sweep seeds of every
// family (or -sweep.family) in each of -gate.modes, written to -gate.out
// as one JSON array of the seeds that had findings; with -gate.progress N
// a line "gate: ..." on stderr every N runs (realrun's log shows them).
// With -gate.strategy guided it makes -sweep runs of the guided loop
// instead (gateGuided), and with -gate.inputs it runs again the guided
// runs another build wrote (gateInputs).
func TestGateSweep(t *testing.T) {
	if *gateOut == "" || (*sweepSeeds == 0 && *gateInputs == "") {
		t.Skip("tool: needs -gate.out and -sweep N (or -gate.inputs FILE)")
	}
	modes := strings.Split(*gateModes, ",")
	for _, mode := range modes {
		if mode != "plain" && mode != "hold" {
			t.Fatalf("unknown mode %q (want plain or hold)", mode)
		}
	}
	plant, ok := gatePlants[*gatePlant]
	if !ok && *gatePlant != "" {
		t.Fatalf("-gate.plant: unknown bug %q", *gatePlant)
	}
	fams := gateFamilies(*sweepOnly)
	var runs []GateRun
	switch {
	case *gateInputs != "":
		runs = gateInputRuns(t, plant)
	case *gateStrategy == "guided":
		runs = gateGuided(t, modes, fams, plant)
	case *gateStrategy == "random":
		runs = gateSeeds(t, modes, fams, plant)
	default:
		t.Fatalf("-gate.strategy: unknown strategy %q (want random or guided)", *gateStrategy)
	}
	b, err := json.Marshal(runs)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(*gateOut, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// gateSeeds are the gate's seeded runs: seeds -sweep.start on, each family
// in each mode; those with findings.
func gateSeeds(t *testing.T, modes []string, fams []plan.Family, plant plantedBug) []GateRun {
	p := gateProgressor{every: *gateProgress, total: len(modes) * len(fams) * *sweepSeeds, w: os.Stderr}
	var runs []GateRun
	for _, mode := range modes {
		for _, f := range fams {
			for i := range *sweepSeeds {
				seed := *sweepStart + uint64(i)
				o := RunOptions{HoldWakes: mode == "hold", plant: plant}
				r := Bubble(t, func() Result { return RunSeedWith(f, seed, o) })
				keys := GateKeys(r)
				if len(keys) > 0 {
					runs = append(runs, GateRun{Family: f.Name, Seed: seed, Hold: o.HoldWakes, Keys: keys})
				}
				p.ran(f.Name, mode, seed, len(keys) > 0)
			}
		}
	}
	return runs
}

// gateProgressor writes TestGateSweep's progress line every `every` runs
// (counts only: nothing of the wall clock reaches it).
type gateProgressor struct {
	every, total, done, found int
	w                         io.Writer
	unit                      string // what names a run: "seed" ("" too) or "run" (a guided run's index)
}

func (p *gateProgressor) ran(family, mode string, seed uint64, found bool) {
	p.done++
	if found {
		p.found++
	}
	if p.every > 0 && (p.done%p.every == 0 || p.done == p.total) {
		fmt.Fprintf(p.w, "gate: %d of %d runs, %d with findings (last: %s %s %s %d)\n", p.done, p.total, p.found, family, mode, cmp.Or(p.unit, "seed"), seed)
	}
}
