package run

import (
	"flag"
	"fmt"
	"slices"
	"testing"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/oracle"
	"github.com/podsim/podsim/oracle/safety"
	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/sim"
	"github.com/podsim/podsim/world"
)

var incrementalSeeds = flag.Uint64("incremental.seeds", 0,
	"TestSafetyIncrementalPass: seeds per family (0: 40, 8 with -short; mutants get half)")

// finished keeps what an oracle found instead of adding it to the run's
// verdict.
type finished struct {
	oracle.Oracle
	found []history.Violation
}

func (f *finished) Finish(v oracle.View, err error) []history.Violation {
	f.found = f.Oracle.Finish(v, err)
	return nil
}

// incrementalAgrees runs one seed with the safety oracle twice over the same
// stream, judging only the UIDs whose judgement can have changed (the
// oracle of every run) and every UID (safety.NewFullPass), and returns how
// their violations differ ("" if not) and how many each found.
func incrementalAgrees(f plan.Family, seed uint64, strategy sim.Strategy, opts CheckOptions) (string, int) {
	st := plan.SeedStreams(seed)
	w := world.NewWorld(f.Generate(st.Plan), st.Schedule, st.Faults, strategy)
	if err := reintroduce(w, opts.Mutant); err != nil {
		return err.Error(), 0
	}
	inc, full := &finished{Oracle: safety.New()}, &finished{Oracle: safety.NewFullPass()}
	judge(f, seed, w, opts, []oracle.Oracle{inc, full})
	if !slices.Equal(inc.found, full.found) {
		return fmt.Sprintf("incremental %v\nfull pass %v", inc.found, full.found), len(full.found)
	}
	return "", len(full.found)
}

// TestSafetyIncrementalPass: the safety oracle's per-release pass over the
// UIDs whose judgement can have changed finds exactly what a pass over every
// UID finds — the same violations, messages, times and order — in every
// kubelet family under both strategies (with and without the internal
// invariants), and under every catalogued mutant on its gate families, where
// the oracles find plenty (the test fails if the mutants' runs found no
// safety violation at all: a comparison of empty lists proves nothing).
func TestSafetyIncrementalPass(t *testing.T) {
	seeds := uint64(40)
	if testing.Short() {
		seeds = 8
	}
	if *incrementalSeeds > 0 {
		seeds = *incrementalSeeds
	}
	families := map[string]plan.Family{}
	for _, f := range plan.KubeletFamilies() {
		families[f.Name] = f
		for _, strategy := range []sim.Strategy{sim.RandomWalk{}, sim.PCT{Depth: 3, Steps: 2000}} {
			for seed := range seeds {
				opts := CheckOptions{ObservableOnly: seed%2 == 1}
				if diff, _ := incrementalAgrees(f, seed, strategy, opts); diff != "" {
					t.Fatalf("%s %v seed %d (observable-only %v):\n%s", f.Name, strategy, seed, opts.ObservableOnly, diff)
				}
			}
		}
	}
	found := 0
	for _, m := range world.Mutants() {
		for _, name := range m.Families {
			f, ok := families[name]
			if !ok {
				continue
			}
			for seed := range max(seeds/2, 1) {
				diff, n := incrementalAgrees(f, seed, sim.RandomWalk{}, CheckOptions{Mutant: m.Name})
				if diff != "" {
					t.Fatalf("mutant %s, %s seed %d:\n%s", m.Name, f.Name, seed, diff)
				}
				found += n
			}
		}
	}
	if found == 0 {
		t.Fatal("no mutant run found a safety violation: the comparison saw nothing to compare")
	}
	t.Logf("%d safety violations under the mutants, the same in both passes", found)
}
