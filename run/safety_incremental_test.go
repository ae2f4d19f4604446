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
// stream, judging only the UIDs whose judgement can have changed and
// skipping repeated SyncKnownPods releases (newOracle: safety.New, the
// oracle of every run) and judging every UID at every release
// (safety.NewFullPass), and returns how their violations differ ("" if
// not), how many the full pass found and how many releases the first
// skipped.
func incrementalAgrees(f plan.Family, seed uint64, strategy sim.Strategy, opts CheckOptions,
	newOracle func() oracle.Oracle) (diff string, found, skipped int) {
	st := plan.SeedStreams(seed)
	w := world.NewWorld(f.Generate(st.Plan), st.Schedule, st.Faults, strategy)
	if err := reintroduce(w, opts.Mutant); err != nil {
		return err.Error(), 0, 0
	}
	inc, full := &finished{Oracle: newOracle()}, &finished{Oracle: safety.NewFullPass()}
	judge(f, seed, w, opts, []oracle.Oracle{inc, full})
	skipped = safety.RepeatsSkipped(inc.Oracle)
	if !slices.Equal(inc.found, full.found) {
		return fmt.Sprintf("incremental %v\nfull pass %v", inc.found, full.found), len(full.found), skipped
	}
	return "", len(full.found), skipped
}

// TestSafetyIncrementalPass: the safety oracle's per-release pass over the
// UIDs whose judgement can have changed, with its skip of repeated
// SyncKnownPods releases, finds exactly what a pass over every UID at every
// release finds — the same violations, messages, times and order — in every
// kubelet family under both strategies (with and without the internal
// invariants), and under every catalogued mutant on its gate families, where
// the oracles find plenty (the test fails if the mutants' runs found no
// safety violation at all, or if no release was skipped: a comparison of
// empty lists proves nothing).
func TestSafetyIncrementalPass(t *testing.T) {
	seeds := uint64(40)
	if testing.Short() {
		seeds = 8
	}
	if *incrementalSeeds > 0 {
		seeds = *incrementalSeeds
	}
	families := map[string]plan.Family{}
	skipped := 0
	for _, f := range plan.KubeletFamilies() {
		families[f.Name] = f
		for _, strategy := range []sim.Strategy{sim.RandomWalk{}, sim.PCT{Depth: 3, Steps: 2000}} {
			for seed := range seeds {
				opts := CheckOptions{ObservableOnly: seed%2 == 1}
				diff, _, n := incrementalAgrees(f, seed, strategy, opts, safety.New)
				if diff != "" {
					t.Fatalf("%s %v seed %d (observable-only %v):\n%s", f.Name, strategy, seed, opts.ObservableOnly, diff)
				}
				skipped += n
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
				diff, n, k := incrementalAgrees(f, seed, sim.RandomWalk{}, CheckOptions{Mutant: m.Name}, safety.New)
				if diff != "" {
					t.Fatalf("mutant %s, %s seed %d:\n%s", m.Name, f.Name, seed, diff)
				}
				found, skipped = found+n, skipped+k
			}
		}
	}
	if found == 0 || skipped == 0 {
		t.Fatalf("%d safety violations under the mutants, %d releases skipped: the comparison saw nothing to compare", found, skipped)
	}
	t.Logf("%d safety violations under the mutants, the same in both passes; %d repeated SyncKnownPods releases skipped", found, skipped)
}

// TestSafetyCarelessSkipCaught: the comparison behind
// TestSafetyIncrementalPass catches a skip of SyncKnownPods releases that
// is wrong. The careless skip (safety.NewCarelessSkip) skips every release
// whose call and answers repeat the last SyncKnownPods', without asking
// that nothing happened since, that nothing waits to be judged and that no
// orphan is left to mark: within the mutants' first seeds some verdict
// differs from the full pass's.
func TestSafetyCarelessSkipCaught(t *testing.T) {
	families := map[string]plan.Family{}
	for _, f := range plan.KubeletFamilies() {
		families[f.Name] = f
	}
	for _, m := range world.Mutants() {
		for _, name := range m.Families {
			f, ok := families[name]
			if !ok {
				continue
			}
			for seed := range uint64(8) {
				if diff, _, _ := incrementalAgrees(f, seed, sim.RandomWalk{}, CheckOptions{Mutant: m.Name}, safety.NewCarelessSkip); diff != "" {
					t.Logf("caught: mutant %s, %s seed %d:\n%s", m.Name, f.Name, seed, diff)
					return
				}
			}
		}
	}
	t.Fatal("a careless skip of SyncKnownPods releases went unnoticed under every mutant's first 8 seeds")
}
