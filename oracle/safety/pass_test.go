package safety

import (
	"slices"
	"testing"
)

// TestSortedKnownAndDesiredSet: the known UIDs reach release's merge walk
// sorted and without repeats whatever order the view lists them in, and
// the desired set answers membership for sorted and unsorted lists, the
// UIDs asked in ascending order.
func TestSortedKnownAndDesiredSet(t *testing.T) {
	for _, c := range []struct{ in, want []string }{
		{nil, nil},
		{[]string{"a", "b"}, []string{"a", "b"}},
		{[]string{"b", "a", "b"}, []string{"a", "b"}},
		{[]string{"a", "a"}, []string{"a"}},
	} {
		if got := sortedKnown(slices.Clone(c.in)); !slices.Equal(got, c.want) {
			t.Fatalf("sortedKnown(%v) = %v, want %v", c.in, got, c.want)
		}
	}
	o := newSafetyOracle()
	for _, desired := range [][]string{{"a", "c"}, {"c", "a"}} {
		set := o.desiredSet(desired).walk() // asked in ascending order, one twice
		for _, c := range []struct {
			uid  string
			want bool
		}{{"a", true}, {"b", false}, {"c", true}, {"c", true}, {"d", false}} {
			if set.has(c.uid) != c.want {
				t.Fatalf("desired %v: has(%s) = %v, want %v", desired, c.uid, !c.want, c.want)
			}
		}
	}
}
