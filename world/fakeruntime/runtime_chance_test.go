package fakeruntime

import (
	"testing"

	"github.com/podsim/podsim/sim"
)

// TestChanceZeroInjectsNothing: choice 0 (a shrunk or exhausted choice
// list) never injects a fault, the top choice does whenever the rate is
// positive, and over a seeded stream the rate is what it says.
func TestChanceZeroInjectsNothing(t *testing.T) {
	for _, tc := range []struct {
		choice, perMille int
		want             bool
	}{
		{0, 999, false}, {0, 1, false}, {999, 1, true}, {999, 0, false}, {500, 500, true}, {499, 500, false},
		{0, 1000, true},
	} {
		r := &Runtime{Draw: sim.NewReplay([]int{tc.choice})}
		if got := r.chance(tc.perMille); got != tc.want {
			t.Errorf("chance(%d) with choice %d: got %v, want %v", tc.perMille, tc.choice, got, tc.want)
		}
	}
	r, hits := &Runtime{Draw: sim.NewPCG(7)}, 0
	for range 100_000 {
		if r.chance(300) {
			hits++
		}
	}
	if hits < 29_000 || hits > 31_000 {
		t.Errorf("chance(300) hit %d of 100,000 draws, want about 30,000", hits)
	}
}
