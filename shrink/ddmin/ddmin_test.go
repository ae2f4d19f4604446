package ddmin

import (
	"slices"
	"testing"
)

// TestSliceKeepsOnlyWhatTheFailureNeeds: a failure that needs 3 and 7 (in
// that order) shrinks to exactly [3 7]; one that never holds without an
// element keeps the whole sequence; keep sees only candidates that are
// subsequences of the input.
func TestSliceKeepsOnlyWhatTheFailureNeeds(t *testing.T) {
	in := []int{1, 2, 3, 4, 5, 6, 7, 8, 9}
	needs := func(xs []int) bool {
		i := slices.Index(xs, 3)
		return i >= 0 && slices.Contains(xs[i:], 7)
	}
	if got := Slice(in, needs); !slices.Equal(got, []int{3, 7}) {
		t.Fatalf("Slice = %v, want [3 7]", got)
	}
	all := func(xs []int) bool { return len(xs) == len(in) }
	if got := Slice(in, all); !slices.Equal(got, in) {
		t.Fatalf("Slice with nothing removable = %v, want %v", got, in)
	}
	if !slices.Equal(in, []int{1, 2, 3, 4, 5, 6, 7, 8, 9}) {
		t.Fatalf("Slice changed its input: %v", in)
	}
}
