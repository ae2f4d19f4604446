package history

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// sortedCases are sorted lists of short strings, repeats among them, and
// strings to look up, each from a seeded source.
func sortedCases(n int) (lists [][]string, asks [][]string) {
	r := rand.New(rand.NewPCG(1, 2))
	word := func() string { return string(rune('a'+r.IntN(6))) + string(rune('a'+r.IntN(3))) }
	for range n {
		l := make([]string, r.IntN(8))
		for i := range l {
			l[i] = word()
		}
		slices.Sort(l)
		a := make([]string, r.IntN(10))
		for i := range a {
			a[i] = word()
		}
		lists, asks = append(lists, l), append(asks, a)
	}
	return lists, asks
}

// TestSearchIsBinarySearch: Search answers as slices.BinarySearch does, the
// position and whether found, on lists with repeats, empty ones, and
// strings before, between and after their entries. It fails on a search
// that stops at any equal entry or finds the first greater one.
func TestSearchIsBinarySearch(t *testing.T) {
	lists, asks := sortedCases(500)
	for k, l := range lists {
		for _, s := range append(asks[k], "", "zz") {
			i, ok := Search(l, s)
			wi, wok := slices.BinarySearch(l, s)
			if i != wi || ok != wok {
				t.Fatalf("Search(%q, %q) = %d, %v; slices.BinarySearch says %d, %v", l, s, i, ok, wi, wok)
			}
		}
	}
}

// TestWalkIsMembership: Walk answers, for strings asked in ascending order
// with repeats, whether the list holds each. It fails on a walk that
// steps past an equal entry (a string asked twice) or stops at a greater
// one without looking further next time.
func TestWalkIsMembership(t *testing.T) {
	lists, asks := sortedCases(500)
	for k, l := range lists {
		a := slices.Sorted(slices.Values(asks[k]))
		w := Walk[string]{Sorted: l}
		for _, s := range a {
			if got, want := w.Has(s), slices.Contains(l, s); got != want {
				t.Fatalf("Walk over %q asked %q (of %q): %v, want %v", l, s, a, got, want)
			}
		}
	}
}
