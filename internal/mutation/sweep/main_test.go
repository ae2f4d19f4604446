package main

import (
	"errors"
	"slices"
	"testing"

	"github.com/podsim/podsim/internal/mutation"
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
