package coverage

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestRecorderCoverageIsEveryPairSorted: a Recorder's Coverage, whatever
// it keeps inside, is every tuple visited, sorted, and every change of a
// subject's tuple as the pair of the two tuples' places in that list,
// sorted by from then to, once each: the definition, computed here from the
// visits alone, for random visits of random subjects (a third of the
// visits repeat the subject's tuple; many tuples and transitions repeat;
// some rounds reach more transitions than Coverage keeps room for on the
// stack).
func TestRecorderCoverageIsEveryPairSorted(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	manyTransitions := false
	for round := range 300 {
		rec := NewRecorder()
		handles := make([]int, 1+r.IntN(4)) // per subject
		current := make([]string, len(handles))
		seen := map[string]bool{}
		pairs := map[[2]string]bool{}
		tuples := 1 + r.IntN(40)
		for range r.IntN(600) {
			s := r.IntN(len(handles))
			tuple := current[s]
			if tuple == "" || r.IntN(3) > 0 {
				tuple = "t" + strings.Repeat("x", r.IntN(tuples))
			}
			if current[s] != "" && current[s] != tuple {
				pairs[[2]string{current[s], tuple}] = true
			}
			seen[tuple], current[s] = true, tuple
			handles[s] = rec.Visit(handles[s], []byte(tuple))
		}
		got := rec.Coverage()
		manyTransitions = manyTransitions || len(pairs) > 128 // past Coverage's room on the stack
		want := slices.Sorted(func(yield func(string) bool) {
			for tu := range seen {
				if !yield(tu) {
					return
				}
			}
		})
		if !slices.Equal(got.Tuples, want) {
			t.Fatalf("round %d: tuples %v, want %v", round, got.Tuples, want)
		}
		var wantTrans [][2]int
		for p := range pairs {
			from, _ := slices.BinarySearch(want, p[0])
			to, _ := slices.BinarySearch(want, p[1])
			wantTrans = append(wantTrans, [2]int{from, to})
		}
		slices.SortFunc(wantTrans, func(a, b [2]int) int {
			if a[0] != b[0] {
				return a[0] - b[0]
			}
			return a[1] - b[1]
		})
		if !slices.Equal(got.Transitions, wantTrans) {
			t.Fatalf("round %d: transitions %v, want %v", round, got.Transitions, wantTrans)
		}
	}
	if !manyTransitions {
		t.Fatal("no round reached more than 128 transitions")
	}
}
