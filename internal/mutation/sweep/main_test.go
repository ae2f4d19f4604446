package main

import (
	"slices"
	"testing"

	"github.com/podsim/podsim/internal/mutation"
	"github.com/podsim/podsim/plan"
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
