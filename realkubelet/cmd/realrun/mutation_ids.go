package main

import (
	"fmt"
	"maps"
	"slices"

	"github.com/podsim/podsim/internal/mutation"
)

// parseIDs reads --ids (mutation.ParseIDs: numbers, ranges, keys or
// @FILE).
func parseIDs(v string) (nums map[int]bool, keys map[string]bool, err error) {
	nums, keys, err = mutation.ParseIDs(v)
	if err != nil {
		err = fmt.Errorf("--ids: %v", err)
	}
	return nums, keys, err
}

// chosen keeps the mutants --ids names (every one without --ids); a key
// that names none of them is an error.
func chosen(ms []mutation.Mutant, nums map[int]bool, keys map[string]bool) ([]mutation.Mutant, error) {
	if nums == nil && keys == nil {
		return ms, nil
	}
	var out []mutation.Mutant
	found := map[string]bool{}
	for _, m := range ms {
		if nums[m.Index] || keys[m.Key] {
			out = append(out, m)
			found[m.Key] = true
		}
	}
	for _, k := range slices.Sorted(maps.Keys(keys)) {
		if !found[k] {
			return nil, fmt.Errorf("--ids: %s is the key of no mutant of this tree's files", k)
		}
	}
	last := -1
	for _, m := range ms {
		last = max(last, m.Index)
	}
	for _, n := range slices.Sorted(maps.Keys(nums)) {
		if n > last {
			return nil, fmt.Errorf("--ids: %d is the number of no mutant of this tree's files (they run to %d)", n, last)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("--ids names no mutant in scope (a logging statement's are left out)")
	}
	return out, nil
}

// checkKeys refuses, before anything is built, an --ids key or number
// that names no mutant of the target's files. A tree whose files cannot be
// read here is left to the build, which says why.
func checkKeys(t target, ids string) error {
	nums, keys, err := parseIDs(ids)
	if err != nil || len(keys)+len(nums) == 0 {
		return err
	}
	srcs, err := t.read(t.source)
	if err != nil {
		return nil
	}
	ms, _, err := t.findMutants(srcs)
	if err != nil {
		return nil
	}
	_, err = chosen(ms, nums, keys)
	return err
}
