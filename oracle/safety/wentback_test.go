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

// TestLatticeOKIsEveryRule: latticeOK, checkLattice's shortcut, holds
// exactly when every rule does (latticeHoldsOf equal to latticeHolds), for
// all 256 answers with each evicted and deleted flag. It fails with a rule
// left out of the expression.
func TestLatticeOKIsEveryRule(t *testing.T) {
	failing := 0
	for bits := range 256 {
		a := oracle.Answers{Known: bits&1 != 0, KnownTerminated: bits&2 != 0, CouldHaveRunning: bits&4 != 0,
			BeFinished: bits&8 != 0, TerminationRequested: bits&16 != 0, ContainersBeTerminating: bits&32 != 0,
			RuntimeBeRemoved: bits&64 != 0, ContentBeRemoved: bits&128 != 0}
		for flags := range 4 {
			inc := &safetyInc{evicted: flags&1 != 0, deleted: flags&2 != 0}
			want := latticeHoldsOf(inc, a) == latticeHolds
			if got := latticeOK(inc, a); got != want {
				t.Fatalf("%+v, evicted %v, deleted %v: latticeOK %v, every rule holding %v", a, inc.evicted, inc.deleted, got, want)
			}
			if !want {
				failing++
			}
		}
	}
	if failing == 0 {
		t.Fatal("every case held: nothing was compared")
	}
}
