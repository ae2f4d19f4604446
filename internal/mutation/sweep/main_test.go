package main

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/podsim/podsim/internal/mutation"
	"github.com/podsim/podsim/internal/mutation/active"
	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/run"
)

// TestUnreachedNamesTheMissingMarks: a declared mark no seed reached is
// listed as family/mark; reached ones and undeclared ones are not.
func TestUnreachedNamesTheMissingMarks(t *testing.T) {
	fams := []plan.Family{{Name: "a", Marks: []string{"x", "y"}}, {Name: "b", Marks: []string{"z"}}}
	reached := map[string]map[string]bool{"a": {"x": true, "other": true}, "b": {"z": true}}
	var v mutation.Verdict
	unreached(fams, reached, &v)
	if !slices.Equal(v.Unreached, []string{"a/y"}) {
		t.Errorf("unreached = %v, want [a/y]", v.Unreached)
	}
	v = mutation.Verdict{}
	unreached(fams, map[string]map[string]bool{"a": {"x": true, "y": true}, "b": {"z": true}}, &v)
	if len(v.Unreached) != 0 {
		t.Errorf("every mark reached, yet %v", v.Unreached)
	}
}

// TestFailedKeepsTheFirstAndCountsUnderCount: the first failing run names
// the verdict; later ones change nothing but, under -count, the count.
func TestFailedKeepsTheFirstAndCountsUnderCount(t *testing.T) {
	defer func(c bool) { count = c }(count)
	bad := run.Result{Err: errors.New("boom")}
	for _, c := range []bool{false, true} {
		count = c
		var v mutation.Verdict
		failed(&v, "random", "swarm", 7, bad)
		failed(&v, "random", "swarm", 9, bad)
		want := 0
		if c {
			want = 2
		}
		if !v.Killed || v.Seed != 7 || v.Family != "swarm" || v.Reason != "run: boom" || v.Failures != want || len(v.FailedAt) != want {
			t.Errorf("count=%v: %+v, want seed 7 and %d failures", c, v, want)
		}
	}
}

// TestReachFileSkipsOnlyTheRunsThatMissTheMutant: the line a run writes
// names the sites it reached; read back for a mutant, only the runs that
// did not reach that mutant's site are skipped, and runs not in the file
// are run.
func TestReachFileSkipsOnlyTheRunsThatMissTheMutant(t *testing.T) {
	defer func(w io.Writer, s map[string]bool) { reachOut, reachSkips = w, s }(reachOut, reachSkips)
	var file strings.Builder
	reachOut, reachSkips = &file, nil
	for seed, sites := range [][]int{{4, 9}, {9}, {}} {
		if beforeRun("random", "swarm", uint64(seed)) {
			t.Fatal("skipped a run with no -reach-in")
		}
		for _, id := range sites {
			active.On(id)
		}
		afterRun("random", "swarm", uint64(seed))
	}
	if want := "random swarm 0 4 9\nrandom swarm 1 9\nrandom swarm 2\n"; file.String() != want {
		t.Fatalf("reach file %q, want %q", file.String(), want)
	}
	reachOut = nil
	for id, want := range map[int][]uint64{4: {1, 2}, 9: {2}, 5: {0, 1, 2}} {
		skips, err := readSkips(strings.NewReader(file.String()), id)
		if err != nil {
			t.Fatal(err)
		}
		reachSkips = skips
		var got []uint64
		for seed := uint64(0); seed < 4; seed++ {
			if beforeRun("random", "swarm", seed) {
				got = append(got, seed)
			}
		}
		if beforeRun("pct", "swarm", 0) || beforeRun("random", "update-storm", 0) {
			t.Errorf("mutant %d: skipped a run the file does not list", id)
		}
		if !slices.Equal(got, want) {
			t.Errorf("mutant %d: skipped seeds %v, want %v", id, got, want)
		}
	}
	if _, err := readSkips(strings.NewReader("random swarm x 4\n"), 4); err == nil {
		t.Error("a bad seed was read")
	}
}

// TestFamiliesNamedTakesAListInItsOrder: -family takes one name or a
// comma-separated list, in the list's order; an unknown name is an error.
func TestFamiliesNamedTakesAListInItsOrder(t *testing.T) {
	fams, err := familiesNamed("update-storm,api-shapes")
	if err != nil || len(fams) != 2 || fams[0].Name != "update-storm" || fams[1].Name != "api-shapes" {
		t.Errorf("familiesNamed = %v, %v", fams, err)
	}
	if all, err := familiesNamed(""); err != nil || len(all) != len(plan.Families()) {
		t.Errorf("empty list: %d families, %v", len(all), err)
	}
	if _, err := familiesNamed("swarm,nosuch"); err == nil {
		t.Error("an unknown family was accepted")
	}
}

// TestDeterminismCheckCatchesASecondTrace: a recorded run that gives
// another trace on a second run is a catch, named by family, seed and the
// two traces; the runs are repeated seed by seed across the families, and
// families with nothing recorded (skipped) are not run.
func TestDeterminismCheckCatchesASecondTrace(t *testing.T) {
	fams := []plan.Family{{Name: "a"}, {Name: "b"}, {Name: "c"}}
	first := firstTraces{"a": {{5, "a5"}, {6, "a6"}}, "b": {{5, "b5"}, {6, "b6"}, {7, "b7"}}} // c skipped
	trace := map[string]string{}
	for f, runs := range first {
		for _, r := range runs {
			trace[fmt.Sprint(f, r.seed)] = r.trace
		}
	}
	var asked []string
	same := func(f plan.Family, seed uint64) string {
		asked = append(asked, fmt.Sprint(f.Name, seed))
		return trace[fmt.Sprint(f.Name, seed)]
	}
	var v mutation.Verdict
	checkDeterminism(fams, first, same, &v)
	if v.Killed || !slices.Equal(asked, []string{"a5", "b5", "a6", "b6", "b7"}) {
		t.Errorf("same traces: %+v, reran %v", v, asked)
	}
	other := func(f plan.Family, seed uint64) string {
		if f.Name == "b" && seed == 6 {
			return "cccc"
		}
		return trace[fmt.Sprint(f.Name, seed)]
	}
	checkDeterminism(fams, first, other, &v)
	if !v.Killed || v.Strategy != Determinism || v.Family != "b" || v.Seed != 6 || v.SeedsPerFamily != 0 ||
		!strings.Contains(v.Reason, "b6") || !strings.Contains(v.Reason, "cccc") {
		t.Errorf("a second trace: %+v", v)
	}
}
