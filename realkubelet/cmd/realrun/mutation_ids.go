package main

import (
	"fmt"
	"maps"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/podsim/podsim/internal/mutation"
)

// parseIDs reads --ids: numbers and ranges ("3,10-20"), keys (the "k…"
// names mutation.Mutant.Key gives, which do not move when the file's code
// before a mutant does, so they name the same mutant in another tree), or
// @FILE holding any of these separated by white space or commas.
func parseIDs(v string) (nums map[int]bool, keys map[string]bool, err error) {
	if v == "" {
		return nil, nil, nil
	}
	if file, ok := strings.CutPrefix(v, "@"); ok {
		b, err := os.ReadFile(file)
		if err != nil {
			return nil, nil, fmt.Errorf("--ids: %v", err)
		}
		v = strings.Join(strings.Fields(strings.ReplaceAll(string(b), ",", " ")), ",")
	}
	nums, keys = map[int]bool{}, map[string]bool{}
	for _, f := range strings.Split(v, ",") {
		if mutantKey.MatchString(f) {
			keys[f] = true
			continue
		}
		lo, hi, isRange := strings.Cut(f, "-")
		a, err1 := strconv.Atoi(lo)
		b, err2 := a, error(nil)
		if isRange {
			b, err2 = strconv.Atoi(hi)
		}
		if err1 != nil || err2 != nil || a < 0 || b < a {
			return nil, nil, fmt.Errorf("--ids: %q is not a mutant number, range or key (want e.g. 3,10-20,k18f045ef84 or @FILE)", f)
		}
		for n := a; n <= b; n++ {
			nums[n] = true
		}
	}
	return nums, keys, nil
}

// mutantKey is the form of a mutant's key.
var mutantKey = regexp.MustCompile(`^k[0-9a-f]{10}$`)

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
	return out, nil
}

// checkKeys refuses, before anything is built, an --ids key that names no
// mutant of the target's files. A tree whose files cannot be read here is
// left to the build, which says why.
func checkKeys(t target, ids string) error {
	nums, keys, err := parseIDs(ids)
	if err != nil || len(keys) == 0 {
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
