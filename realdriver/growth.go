package realdriver

import (
	"fmt"
	"strings"
)

// Growth is the state coverage a sweep's runs reached so far: the
// distinct tuples and transitions, and how many there were after 10, 100,
// 1,000, … runs (the coverage growth curve).
type Growth struct {
	runs        int
	tuples      map[string]bool
	transitions map[string]bool
	curve       []string // "at N runs: T tuples, R transitions"
}

// Add counts one run that reached tuples and transitions.
func (g *Growth) Add(tuples, transitions []string) {
	if g.tuples == nil {
		g.tuples, g.transitions = map[string]bool{}, map[string]bool{}
	}
	for _, t := range tuples {
		g.tuples[t] = true
	}
	for _, t := range transitions {
		g.transitions[t] = true
	}
	g.runs++
	if n := g.runs; n >= 10 && isPowerOfTen(n) {
		g.curve = append(g.curve, fmt.Sprintf("%d: %d/%d", n, len(g.tuples), len(g.transitions)))
	}
}

// Tuples and Transitions count the distinct ones reached.
func (g *Growth) Tuples() int      { return len(g.tuples) }
func (g *Growth) Transitions() int { return len(g.transitions) }

// Line says what was reached, and the curve: "coverage: 120 tuples, 480
// transitions (tuples/transitions after 10 runs: 40/90, 100: 100/300)".
func (g *Growth) Line(unit string) string {
	s := fmt.Sprintf("coverage: %d tuples, %d transitions", len(g.tuples), len(g.transitions))
	if len(g.curve) > 0 {
		s += fmt.Sprintf(" (tuples/transitions after %s %s)", unit, strings.Join(g.curve, ", "))
	}
	return s
}

func isPowerOfTen(n int) bool {
	for n%10 == 0 {
		n /= 10
	}
	return n == 1
}
