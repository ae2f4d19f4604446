package run

import (
	"testing"

	"pgregory.net/rapid"

	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/sim"
)

// TestRapidFamilies checks every family under rapid (-rapid.checks sets
// the budget, 100 by default). A failure is shrunk — plan, interleaving and
// faults together — and saved under testdata/rapid/ (ignored by git: a
// local record); the failure prints the -rapid.failfile flag that replays
// it. rapid does not re-run saved files on its own.
func TestRapidFamilies(t *testing.T) {
	for _, f := range plan.Families() {
		t.Run(f.Name, func(t *testing.T) {
			rapid.Check(t, func(rt *rapid.T) { CheckRapid(rt, f, sim.RandomWalk{}, CheckOptions{}) })
		})
	}
}

// FuzzScenarios is the coverage-guided form: the fuzzer's bytes pick the
// family, the plan, the schedule and the faults.
//
//	go test -run '^$' -fuzz FuzzScenarios ./run
func FuzzScenarios(f *testing.F) {
	fams := plan.Families()
	f.Fuzz(rapid.MakeFuzz(func(rt *rapid.T) {
		fam := fams[rapid.IntRange(0, len(fams)-1).Draw(rt, "family")]
		CheckRapid(rt, fam, sim.RandomWalk{}, CheckOptions{})
	}))
}
