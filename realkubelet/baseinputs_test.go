package realkubelet

import (
	"strings"
	"testing"

	"github.com/podsim/podsim/guided"
	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/realdriver"
	"github.com/podsim/podsim/realkubelet/planted"
)

var inputFlags = realdriver.NewInputFlags()

// TestBaseInputs is the differential judgement of a guided sweep of a
// mutant (realdriver.InputFlags.Judge): the inputs of its runs with
// findings (-sweep.inputs, written by the mutant's build) run again on
// this build, the base, in the same wake-up mode and components
// (-sweep.hold, -sweep.real), and a run whose finding keys (GateKeys)
// include one the base's run of the same input lacks is the mutant's
// catch, as TestMutantSweep judges a seed. It logs each catch and, per
// family, the first run caught.
func TestBaseInputs(t *testing.T) {
	inputFlags.Judge(t, plan.KubeletFamilies(), func(f plan.Family, token string) ([]string, error) {
		in, err := guided.ParseToken(token)
		if err != nil {
			return nil, err
		}
		return GateKeys(runInput(t, f, in, toolOptions(t))), nil
	})
}

// TestBaseInputsFindsAPlantedBug: the inputs of a guided loop with a
// planted bug (planted.EarlyTerminate), written as -sweep.inputs writes
// them, judged against runs of the same inputs without the bug, are
// caught; judged against runs with the bug, none is.
func TestBaseInputsFindsAPlantedBug(t *testing.T) {
	f := familyNamed(t, "recreate-same-name")
	planted := RunOptions{plant: planted.EarlyTerminate}
	var file strings.Builder
	for _, s := range walk(t, f, planted, guided.NewCorpus(f.Name), 1, 32, 1) {
		if len(s.Result.Findings) > 0 {
			l := realdriver.InputLine{Family: f.Name, Run: s.Index, Token: s.Input.Token(), Keys: GateKeys(s.Result)}
			if err := realdriver.WriteInput(&file, l); err != nil {
				t.Fatal(err)
			}
		}
	}
	judge := func(opts RunOptions) []realdriver.Catch {
		cs, err := realdriver.BaseInputs(strings.NewReader(file.String()), func(l realdriver.InputLine) ([]string, error) {
			in, err := guided.ParseToken(l.Token)
			if err != nil {
				return nil, err
			}
			return GateKeys(runInput(t, f, in, opts)), nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return cs
	}
	if cs := judge(RunOptions{}); len(cs) == 0 {
		t.Fatalf("no run of 32 with the planted bug caught against the clean base (%d lines)", strings.Count(file.String(), "\n"))
	}
	if cs := judge(planted); len(cs) != 0 {
		t.Fatalf("runs with the bug judged against themselves: %d caught, first %+v", len(cs), cs[0])
	}
}
