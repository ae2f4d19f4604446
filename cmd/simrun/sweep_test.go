package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/podsim/podsim/plan"
)

// TestSweepPlanPerFamilyCounts: with a budget per family, each family's
// jobs are the shard's seeds of its own range, families in order; a family
// with no seed in the shard has no job.
func TestSweepPlanPerFamilyCounts(t *testing.T) {
	fams := []plan.Family{{Name: "a"}, {Name: "b"}, {Name: "c"}}
	p := newSweepPlanOf(fams, shard{1, 2}, 10, []uint64{3, 1, 5})
	var got []string
	for i := range p.total() {
		j := p.job(i)
		got = append(got, fmt.Sprintf("%s/%d", j.family.Name, j.seed))
	}
	if want := "a/11 c/11 c/13"; strings.Join(got, " ") != want {
		t.Fatalf("jobs %v, want %s", got, want)
	}
}

// TestDefaultBudget: without --seeds every family runs defaultSeeds, or
// its declared minimum sweep when that is larger (grace-shortening's
// 1,500), so a sweep on defaults judges every family's coverage marks;
// --seeds N runs N of each, as before.
func TestDefaultBudget(t *testing.T) {
	p, err := runFlags{scenario: "all", seeds: defaultSeeds}.plan()
	if err != nil {
		t.Fatal(err)
	}
	raised := 0
	for k, f := range p.families {
		if want := max(defaultSeeds, f.MinimumSeeds()); p.counts[k] != want {
			t.Errorf("%s: %d seeds by default, want %d", f.Name, p.counts[k], want)
		}
		if p.counts[k] > defaultSeeds {
			raised++
		}
		if p.counts[k] < f.MinimumSeeds() {
			t.Errorf("%s: the default %d seeds are fewer than its minimum %d: its marks would not be judged",
				f.Name, p.counts[k], f.MinimumSeeds())
		}
	}
	if g, ok := plan.FamilyNamed("grace-shortening"); !ok || g.MinimumSeeds() <= defaultSeeds || raised == 0 {
		t.Errorf("no family is raised to its minimum (grace-shortening's is %d): the test proves nothing", g.MinimumSeeds())
	}
	p, err = runFlags{scenario: "all", seeds: 7, seedsGiven: true}.plan()
	if err != nil {
		t.Fatal(err)
	}
	if p.total() != 7*uint64(len(plan.Families())) {
		t.Errorf("--seeds 7: %d jobs, want 7 per family", p.total())
	}
}
