package gate

import (
	"reflect"
	"testing"

	"github.com/podsim/podsim/guided"
	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/run"
)

// TestPortfolioDividesEachSeedsRuns: under the portfolio each seed still
// makes two runs per family, and eight seeds' runs are shared 6 random, 4
// guided (numbered by the loop, in order), 2 each of PCT depths 2, 3, 5.
func TestPortfolioDividesEachSeedsRuns(t *testing.T) {
	runs := runsFor(run.Mutant{Families: []string{"update-storm"}}, 100, 8, true)
	count := map[string]int{}
	var guidedSeeds []uint64
	for _, r := range runs {
		count[r.Strategy]++
		if r.Strategy == "guided" {
			guidedSeeds = append(guidedSeeds, r.Seed)
		} else if r.Seed < 100 || r.Seed >= 108 {
			t.Fatalf("run %+v outside seeds 100..107", r)
		}
	}
	if want := map[string]int{"random": 6, "guided": 4, "pct2": 2, "pct3": 2, "pct5": 2}; !reflect.DeepEqual(count, want) {
		t.Fatalf("runs per strategy %v, want %v", count, want)
	}
	if !reflect.DeepEqual(guidedSeeds, []uint64{0, 1, 2, 3}) {
		t.Fatalf("guided runs %v, want the loop's runs 0..3", guidedSeeds)
	}
	if got := runsFor(run.Mutant{Families: []string{"update-storm"}}, 0, 3, false); !reflect.DeepEqual(got, RunsFor(
		run.Mutant{Families: []string{"update-storm"}}, 0, 3)) || got[1].Strategy != "pct" {
		t.Fatalf("the default gate's runs changed: %v", got)
	}
}

// TestPortfolioGuidedRunReplays: a guided gate run is the loop's run, and
// its input token replays it (same failure, same trace); the plan the gate
// reports is the one the run executed.
func TestPortfolioGuidedRunReplays(t *testing.T) {
	opts := run.CheckOptions{Mutant: "B1"}
	g := newGuidedRuns(0, opts, 2)
	fam, _ := plan.FamilyNamed("kill-during-create")
	r, pl, token := g.run(Run{Family: fam.Name, Strategy: "guided", Seed: 3})
	if !r.Failed() || token == "" {
		t.Fatalf("guided run 3 of B1: failed=%v token=%q", r.Failed(), token)
	}
	in, err := guided.ParseToken(token)
	if err != nil {
		t.Fatal(err)
	}
	rp := guided.Replay(fam, in, opts)
	if !rp.Failed() || rp.TraceSHA != r.TraceSHA || !reflect.DeepEqual(rp.Plan.Actions, pl.Actions) {
		t.Fatalf("replay by token: failed=%v trace %s want %s, plan same=%v", rp.Failed(), rp.TraceSHA, r.TraceSHA,
			reflect.DeepEqual(rp.Plan.Actions, pl.Actions))
	}
}

// TestPortfolioGateIndependentOfParallelism: the portfolio gate's verdict
// (first failing run, its input, runs to detection) is the same at any
// parallelism.
func TestPortfolioGateIndependentOfParallelism(t *testing.T) {
	check := func(parallel int) []Row {
		rows, err := Check(Options{Seeds: 12, StartSeeds: 2, Parallel: parallel, Mutants: []string{"B2", "G4"}, Portfolio: true})
		if err != nil {
			t.Fatal(err)
		}
		for i := range rows {
			rows[i].Wall = 0
		}
		return rows
	}
	if a, b := check(1), check(3); !reflect.DeepEqual(a, b) {
		t.Fatalf("portfolio gate differs at parallel 1 and 3:\n%+v\n%+v", a, b)
	}
}
