package realdriver

import (
	"cmp"
	"slices"
)

// Parked is a copy of the parked calls sorted by key (stably: calls with
// one key stay in arrival order), a deterministic order whatever order the
// goroutines arrived at their gates in. The caller holds the gates' lock.
func Parked[C any, K cmp.Ordered](parked []C, key func(C) K) []C {
	out := slices.Clone(parked)
	slices.SortStableFunc(out, func(a, b C) int { return cmp.Compare(key(a), key(b)) })
	return out
}

// Unpark removes the first parked call that match accepts from *parked and
// returns it; false if none does. The caller holds the gates' lock and,
// after releasing it, lets the call return.
func Unpark[C any](parked *[]C, match func(C) bool) (C, bool) {
	i := slices.IndexFunc(*parked, match)
	if i < 0 {
		var none C
		return none, false
	}
	c := (*parked)[i]
	*parked = slices.Delete(*parked, i, i+1)
	return c, true
}
