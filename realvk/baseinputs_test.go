package realvk

import (
	"flag"
	"fmt"
	"os"
	"slices"
	"testing"

	"github.com/podsim/podsim/guided"
	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/realdriver"
)

var (
	sweepInputs = flag.String("sweep.inputs", "", "TestSweep -sweep.strategy guided: write every run with a finding to this file "+
		"(family, run, input token, finding keys), for TestBaseInputs on another build")
	baseInputs = flag.String("base.inputs", "", "TestBaseInputs: a -sweep.inputs file whose inputs to run on this build")
)

// TestBaseInputs is the differential judgement of a guided sweep of a
// mutant (realdriver.BaseInputs): the inputs of its runs with findings
// (-sweep.inputs, written by the mutant's build) run again on this build,
// the base, and a run whose finding keys include one the base's run of
// the same input lacks is the mutant's catch. It logs each catch and,
// per family, the first run caught.
func TestBaseInputs(t *testing.T) {
	if *baseInputs == "" {
		t.Skip("run with -base.inputs FILE")
	}
	f, err := os.Open(*baseInputs)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cs, err := realdriver.BaseInputs(f, func(l realdriver.InputLine) ([]string, error) {
		i := slices.IndexFunc(plan.VKFamilies(), func(f plan.Family) bool { return f.Name == l.Family })
		if i < 0 {
			return nil, fmt.Errorf("no VK family %q", l.Family)
		}
		in, err := guided.ParseToken(l.Token)
		if err != nil {
			return nil, err
		}
		return classesOf(runInput(t, plan.VKFamilies()[i], in)), nil
	})
	if err != nil {
		t.Fatalf("%s: %v", *baseInputs, err)
	}
	realdriver.LogCatches(t, cs)
}
