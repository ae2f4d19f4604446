package run

import (
	"testing"

	"github.com/podsim/podsim/sim"
)

// TestObservableOnly: with CheckOptions.ObservableOnly the workers'
// internal invariants never reach the verdict, in any epoch, and the run
// itself is the same (same trace): the check has no scheduling point. The
// seeds are ones where the default mode does report "workers internal"
// (G3's, G4's and B2's catches, and B2 after a kubelet restart), so the
// test cannot pass by finding nothing to drop.
func TestObservableOnly(t *testing.T) {
	cases := []struct {
		family, mutant string
		seeds          uint64
	}{
		{"static-fullname-chain", "G3", 20},
		{"swarm", "G4", 20},
		{"update-storm", "B2", 20},
		{"swarm-restart", "B2", 40},
	}
	for _, c := range cases {
		f := familyNamed(t, c.family)
		internal := 0
		for seed := range c.seeds {
			on := RunSeed(f, seed, sim.RandomWalk{}, CheckOptions{Mutant: c.mutant})
			off := RunSeed(f, seed, sim.RandomWalk{}, CheckOptions{Mutant: c.mutant, ObservableOnly: true})
			if on.TraceSHA != off.TraceSHA {
				t.Fatalf("%s seed %d %s: the trace changed with the internal invariants off", c.family, seed, c.mutant)
			}
			var observable []string
			for _, v := range on.Violations {
				if v.Oracle == "workers" {
					internal++
				} else {
					observable = append(observable, v.Oracle+" "+v.Invariant)
				}
			}
			var got []string
			for _, v := range off.Violations {
				if v.Oracle == "workers" {
					t.Fatalf("%s seed %d %s: internal invariants off, yet %v", c.family, seed, c.mutant, v)
				}
				got = append(got, v.Oracle+" "+v.Invariant)
			}
			if len(got) != len(observable) {
				t.Errorf("%s seed %d %s: observable verdict changed: on %v, off %v", c.family, seed, c.mutant, observable, got)
			}
		}
		if internal == 0 {
			t.Errorf("%s %s: no seed of %d broke a workers invariant in the default mode", c.family, c.mutant, c.seeds)
		}
	}
}
