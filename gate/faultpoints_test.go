package gate

import (
	"reflect"
	"testing"

	"github.com/podsim/podsim/guided"
	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/run"
)

// TestGateFaultPoints: with Options.FaultPoints every gate run is armed,
// under the default strategies and the portfolio's: the verdict is the same
// at any parallelism; each first detection replays, armed, to a failure
// (by its seed, or by its input for a guided run), with every earlier run
// of its start passing; and arming changes what the gate sees (some
// detection differs from the unarmed gate's), so the option reaches the
// runs.
func TestGateFaultPoints(t *testing.T) {
	for _, portfolio := range []bool{false, true} {
		check := func(parallel int, points bool) []Row {
			rows, err := Check(Options{Seeds: 12, StartSeeds: 3, Parallel: parallel, Mutants: []string{"B2", "G4"},
				Portfolio: portfolio, FaultPoints: points, NoShrink: true})
			if err != nil {
				t.Fatal(err)
			}
			for i := range rows {
				rows[i].Wall = 0
			}
			return rows
		}
		armed := check(1, true)
		if again := check(3, true); !reflect.DeepEqual(armed, again) {
			t.Fatalf("portfolio=%v: the armed gate differs at parallel 1 and 3:\n%+v\n%+v", portfolio, armed, again)
		}
		for _, row := range armed {
			for k, d := range row.Starts {
				if d.Caught {
					checkDetection(t, row.Mutant, uint64(k)*StartStride, d, portfolio)
				}
			}
		}
		if reflect.DeepEqual(armed, check(3, false)) {
			t.Fatalf("portfolio=%v: the armed gate sees exactly what the unarmed one does: the option reaches no run", portfolio)
		}
	}
}

// checkDetection replays d's runs from start with the fault points armed:
// every run before the first failing one passes, and that one fails.
func checkDetection(t *testing.T, m run.Mutant, start uint64, d Detection, portfolio bool) {
	t.Helper()
	opts := run.CheckOptions{Mutant: m.Name, FaultPoints: true}
	runs := runsFor(m, start, 12, portfolio)[:d.Runs]
	g := newGuidedRuns(start, opts, 1)
	for i, gr := range runs {
		r, _, _ := runBatch([]Run{gr}, opts, g)
		if failed := r[0].Failed(); failed != (i == len(runs)-1) || !r[0].FaultPointsArmed {
			t.Fatalf("%s start %d run %d %+v: failed=%v armed=%v; the detection says run %d fails first",
				m.Name, start, i+1, gr, failed, r[0].FaultPointsArmed, d.Runs)
		}
	}
	fam, _ := plan.FamilyNamed(d.First.Family)
	var rp run.Replayed
	if d.Input != "" {
		in, err := guided.ParseToken(d.Input)
		if err != nil {
			t.Fatal(err)
		}
		rp = guided.Replay(fam, in, opts)
	} else {
		rp = run.ReplaySeed(fam, d.First.Seed, strategyNamed(d.First.Strategy), opts)
	}
	if !rp.Failed() || !reflect.DeepEqual(firedInvariants(rp.Result), d.Invariants) {
		t.Fatalf("%s: the first detection %+v replays failed=%v %v, want %v", m.Name, d.First, rp.Failed(),
			firedInvariants(rp.Result), d.Invariants)
	}
}

// TestCorrectCodeWithFaultPoints: the correct code's part arms the points
// when asked (its runs pass, and reach the marks another number of times
// than unarmed: their traces changed), and not otherwise.
func TestCorrectCodeWithFaultPoints(t *testing.T) {
	for _, portfolio := range []bool{false, true} {
		armed := CorrectCode(2, Options{Parallel: 2, Portfolio: portfolio, FaultPoints: true})
		plain := CorrectCode(2, Options{Parallel: 2, Portfolio: portfolio})
		if len(armed.Failed) > 0 || len(plain.Failed) > 0 || armed.Runs != plain.Runs {
			t.Fatalf("portfolio=%v: the correct code failed %v armed, %v unarmed (%d and %d runs)", portfolio,
				armed.Failed, plain.Failed, armed.Runs, plain.Runs)
		}
		if reflect.DeepEqual(armed.Reached, plain.Reached) {
			t.Fatalf("portfolio=%v: armed and unarmed correct-code runs reached the same marks as often: not armed?", portfolio)
		}
	}
}
