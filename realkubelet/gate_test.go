package realkubelet

import (
	"flag"
	"slices"
	"strings"
	"testing"

	"github.com/podsim/podsim/guided"
	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/realdriver"
	"github.com/podsim/podsim/realkubelet/finding"
	"github.com/podsim/podsim/realkubelet/planted"
)

var (
	gateFlags = realdriver.NewGateFlags("plain,hold")
	gatePlant = flag.String("gate.plant", "", "TestGateSweep: plant a driver bug in every run (tests of the gate only: "+
		"admit-in-shutdown, whose first unexplained finding in hold swarm-restart is at seed 11)")
)

// gatePlants are the bugs -gate.plant can plant (plant.go).
var gatePlants = map[string]planted.Bug{"admit-in-shutdown": planted.AdmitInShutdown}

// GateRun is one run's outcome for the differential gate
// (realdriver.GateRun, as realrun gate reads it).
type GateRun = realdriver.GateRun

// GateKeys are r's finding keys, sorted, once each.
func GateKeys(r Result) []string {
	return realdriver.GateKeys(r.Findings, func(f finding.Finding) (string, string) { return f.Class, f.Invariant })
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
// the base and on the candidate, once per tier; realdriver.GateFlags.Sweep):
// -sweep seeds of every kubelet family (or -sweep.family) in each of
// -gate.modes, or -sweep runs of the guided loop (-gate.strategy guided),
// or the guided runs another build wrote (-gate.inputs), each with
// -gate.plant's bug if given.
func TestGateSweep(t *testing.T) {
	plant, ok := gatePlants[*gatePlant]
	if !ok && *gatePlant != "" {
		t.Fatalf("-gate.plant: unknown bug %q", *gatePlant)
	}
	if *sweepRerun && *sweepCorpus == "" {
		t.Fatalf("-sweep.rerun needs -sweep.corpus (the corpora to run again)")
	}
	logind := logindFlag(t)
	opts := func(mode string) RunOptions {
		return RunOptions{HoldWakes: mode == "hold", plant: plant, LogindRestart: logind, LogindDelay: *sweepDelay}
	}
	tg := realdriver.GateTarget{Families: gateFamilies(""), Modes: []string{"plain", "hold"},
		Seed: func(f plan.Family, mode string, seed uint64) []string {
			return GateKeys(Bubble(t, func() Result { return RunSeedWith(f, seed, opts(mode)) }))
		},
		Guided: func(f plan.Family, mode string, start func(uint64, string), emit func(uint64, string, []string)) {
			gateGuided(t, f, opts(mode), start, emit)
		},
		Input: func(f plan.Family, mode string, token string) ([]string, error) {
			in, err := guided.ParseToken(token)
			if err != nil {
				return nil, err
			}
			return GateKeys(runInput(t, f, in, opts(mode))), nil
		},
	}
	gateFlags.Sweep(t, tg, *sweepOnly, *sweepSeeds, *sweepStart)
}
