package history

import "strings"

// Search is slices.BinarySearch for a sorted list of strings: where s is,
// or would be inserted, and whether it is there. It compares once a step,
// where slices.BinarySearch's cmp.Less also tests both strings for NaN.
func Search[E ~string](sorted []E, s E) (int, bool) {
	lo, hi := 0, len(sorted)
	for lo < hi {
		h := int(uint(lo+hi) >> 1)
		if sorted[h] < s {
			lo = h + 1
		} else {
			hi = h
		}
	}
	return lo, lo < len(sorted) && sorted[lo] == s
}

// Walk reports whether a sorted list holds each of the strings asked, in
// ascending order (the same string may be asked again): one pass over the
// list for all of them, instead of a search for each.
type Walk[E ~string] struct {
	Sorted []E
	next   int // the entries before it are smaller than any string asked from now on
}

// Has reports whether w.Sorted holds s; s must not be smaller than the
// string of the previous call.
func (w *Walk[E]) Has(s E) bool {
	for ; w.next < len(w.Sorted); w.next++ {
		if c := strings.Compare(string(w.Sorted[w.next]), string(s)); c >= 0 {
			return c == 0
		}
	}
	return false
}
