package safety

import (
	"testing"

	"github.com/podsim/podsim/oracle"
)

// answersOf is the Answers whose fields are the bits of n, in the order
// of the struct.
func answersOf(n int) oracle.Answers {
	bit := func(i int) bool { return n&(1<<i) != 0 }
	return oracle.Answers{Known: bit(0), KnownTerminated: bit(1), CouldHaveRunning: bit(2), BeFinished: bit(3),
		TerminationRequested: bit(4), ContainersBeTerminating: bit(5), RuntimeBeRemoved: bit(6), ContentBeRemoved: bit(7)}
}

// TestWentBackIsTheFieldLoop: wentBack, checkMonotonic's shortcut, is
// true exactly when the loop over safetyAnswerFields would report a field
// (it differs and now has the value it may only leave), for every pair of
// answers: a field left out of wentBack, or one tested the wrong way round,
// fails it.
func TestWentBackIsTheFieldLoop(t *testing.T) {
	reported := 0
	for i := range 256 {
		for j := range 256 {
			was, is := answersOf(i), answersOf(j)
			want := false
			for _, f := range safetyAnswerFields {
				if f.get(was) != f.get(is) && f.get(is) == f.falls {
					want = true
				}
			}
			if got := wentBack(was, is); got != want {
				t.Fatalf("wentBack(%+v, %+v) = %v, the loop reports: %v", was, is, got, want)
			}
			if want {
				reported++
			}
		}
	}
	if reported == 0 {
		t.Fatal("no pair went back: nothing was compared")
	}
}

// TestLatticeHoldsIsEveryRule: the shortcut of checkLattice compares with
// every rule holding.
func TestLatticeHoldsIsEveryRule(t *testing.T) {
	for i, ok := range latticeHolds {
		if !ok {
			t.Fatalf("latticeHolds[%d] is false", i)
		}
	}
}
