package plan

import "github.com/podsim/podsim/sim"

// Fault points (BUGGIFY) are faults a world ties to a situation rather than
// draws at a flat rate. A world numbers its points 0..n-1 (an enum of its
// own, with its own names) and says which of them the plan's faults allow;
// this is the frame they share: a run switches each allowed point on or
// off, for the whole run, by one draw of its fault stream, so the run's
// fault plan is recorded with its other fault choices, replays from them
// and shrinks like any of them (choice 0 is "off").

// FaultPointOneIn: each fault point the plan's faults allow is on in one
// run in FaultPointOneIn: its draw, Intn(FaultPointOneIn), is on at the top
// of its range.
const FaultPointOneIn = 5

// FaultPointsOn is which of a world's fault points a run switched on: a
// set of points 0..63.
type FaultPointsOn[P ~int] uint64

// On reports whether point p is on.
func (s FaultPointsOn[P]) On(p P) bool { return s&(1<<p) != 0 }

// List is the points on, in order (nil: none).
func (s FaultPointsOn[P]) List() []P {
	var on []P
	for p := P(0); p < 64; p++ {
		if s.On(p) {
			on = append(on, p)
		}
	}
	return on
}

// AllFaultPoints lists a world's n fault points, 0..n-1.
func AllFaultPoints[P ~int](n P) []P {
	all := make([]P, n)
	for p := range n {
		all[p] = p
	}
	return all
}

// ApplicableFaultPoints lists the points of 0..n-1 that applies allows, in
// the order a run draws them.
func ApplicableFaultPoints[P ~int](n P, applies func(P) bool) []P {
	var out []P
	for p := range n {
		if applies(p) {
			out = append(out, p)
		}
	}
	return out
}

// DrawFaultPoints draws a run's fault plan from its fault stream: one draw
// per point of applicable, in order, on at the top of its range.
func DrawFaultPoints[P ~int](faults sim.Source, applicable []P) FaultPointsOn[P] {
	var s FaultPointsOn[P]
	for _, p := range applicable {
		if p < 0 || p >= 64 {
			panic("plan: a world has at most 64 fault points")
		}
		if faults.Intn(FaultPointOneIn) == FaultPointOneIn-1 {
			s |= 1 << p
		}
	}
	return s
}
