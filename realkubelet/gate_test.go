package realkubelet

import (
	"encoding/json"
	"flag"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/podsim/podsim/plan"
)

var (
	gateOut   = flag.String("gate.out", "", "TestGateSweep: write the per-seed finding keys here (JSON)")
	gateModes = flag.String("gate.modes", "plain,hold", "TestGateSweep: wake-up modes, comma-separated (plain, hold)")
)

// GateRun is one seed's outcome for the differential gate: the distinct
// finding keys ("CLASS INVARIANT", UNEXPLAINED for no class) it produced.
type GateRun struct {
	Family string   `json:"family"`
	Seed   uint64   `json:"seed"`
	Hold   bool     `json:"hold"`
	Keys   []string `json:"keys"`
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
// the base and on the candidate): -sweep seeds of every family (or
// -sweep.family) in each of -gate.modes, written to -gate.out as one JSON
// array of the seeds that had findings.
func TestGateSweep(t *testing.T) {
	if *gateOut == "" || *sweepSeeds == 0 {
		t.Skip("tool: needs -gate.out and -sweep N")
	}
	var runs []GateRun
	for _, mode := range strings.Split(*gateModes, ",") {
		if mode != "plain" && mode != "hold" {
			t.Fatalf("unknown mode %q (want plain or hold)", mode)
		}
		for _, f := range gateFamilies(*sweepOnly) {
			for i := range *sweepSeeds {
				seed := *sweepStart + uint64(i)
				o := RunOptions{HoldWakes: mode == "hold"}
				r := Bubble(t, func() Result { return RunSeedWith(f, seed, o) })
				if keys := GateKeys(r); len(keys) > 0 {
					runs = append(runs, GateRun{Family: f.Name, Seed: seed, Hold: o.HoldWakes, Keys: keys})
				}
			}
		}
	}
	b, err := json.Marshal(runs)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(*gateOut, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
