package realvk

import (
	"testing"

	"github.com/podsim/podsim/guided"
	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/realdriver"
)

var inputFlags = realdriver.NewInputFlags()

// TestBaseInputs is the differential judgement of a guided sweep of a
// mutant (realdriver.InputFlags.Judge): the inputs of its runs with
// findings (-sweep.inputs, written by the mutant's build) run again on
// this build, the base, and a run whose finding keys include one the
// base's run of the same input lacks is the mutant's catch. It logs each
// catch and, per family, the first run caught.
func TestBaseInputs(t *testing.T) {
	inputFlags.Judge(t, plan.VKFamilies(), func(f plan.Family, token string) ([]string, error) {
		in, err := guided.ParseToken(token)
		if err != nil {
			return nil, err
		}
		return classesOf(runInput(t, f, in)), nil
	})
}
