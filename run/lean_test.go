package run

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"testing"

	"github.com/podsim/podsim/oracle/coverage"
	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/sim"
)

// leanOf is the result a Lean run of a seed must give, r being the full
// run's under opts: the same in every field but the trace hash of a
// passing seed and the coverage, unless near misses ran the tracker.
func leanOf(r Result, opts CheckOptions) Result {
	if !r.Failed() {
		r.TraceSHA = ""
	}
	if !opts.NearMisses {
		r.Coverage = coverage.Coverage{}
	}
	return r
}

// leanSeeds is how many seeds of each family TestLeanRunsAreFullRuns
// runs under each option set.
func leanSeeds() uint64 {
	if testing.Short() {
		return 6
	}
	return 32
}

// TestLeanRunsAreFullRuns: a Lean run of a seed gives the full run's
// verdict, violations, steps, virtual time, marks and fault points, over
// seeds of every family (the kubelet world's and the VK world's), plain,
// with the fault points and near misses on, and with a mutant of the
// family so that seeds fail; a failing Lean seed carries the full run's
// trace hash. Both run on one lane, one after the other, so that what a
// Lean run leaves untouched (the coverage tracker) is seen to be reset
// before the next full run. Failing seeds of both worlds are required: the
// comparison of hashes must have been made.
func TestLeanRunsAreFullRuns(t *testing.T) {
	failed := map[bool]int{} // by VK
	var lane Lane
	for _, f := range plan.Families() {
		vkFamily := f.Generate(plan.SeedStreams(0).Plan).VK != nil
		for _, opts := range leanOptions(f) {
			lean := opts
			lean.Lean = true
			for seed := range leanSeeds() {
				full := lane.RunSeed(f, seed, sim.RandomWalk{}, opts)
				got := lane.RunSeed(f, seed, sim.RandomWalk{}, lean)
				if d := sameResult(got, leanOf(full, opts)); d != "" {
					t.Fatalf("%s seed %d %+v: Lean run: %s", f.Name, seed, opts, d)
				}
				if full.Failed() {
					failed[vkFamily]++
				}
			}
		}
	}
	t.Logf("failing seeds: %v", failed)
	if failed[false] == 0 || failed[true] == 0 {
		t.Fatalf("failing seeds: %d of kubelet families, %d of VK ones: want some of both", failed[false], failed[true])
	}
}

// leanOptions are the option sets TestLeanRunsAreFullRuns runs f under:
// plain, fault points and near misses, and f's first mutant if it has one.
func leanOptions(f plan.Family) []CheckOptions {
	out := []CheckOptions{{}, {FaultPoints: true, NearMisses: true}}
	for _, m := range Mutants() {
		if slices.Contains(m.Families, f.Name) {
			return append(out, CheckOptions{Mutant: m.Name})
		}
	}
	return out
}

// TestLeanFailingSeedKeepsItsTrace: a sweep's lane (RunSeedTrace) hands a
// Lean failing seed's trace on whole, its hash the trace's, and ReplaySeed
// ignores Lean: its result has the hash and the coverage.
func TestLeanFailingSeedKeepsItsTrace(t *testing.T) {
	for _, c := range []struct{ family, mutant string }{{"early-kill", "B2"}, {"vk-startup", "vk/V1"}} {
		f, _ := plan.FamilyNamed(c.family)
		opts := CheckOptions{Mutant: c.mutant, Lean: true}
		var lane Lane
		var r Result
		var trace string
		for seed := uint64(0); seed < 200 && !r.Failed(); seed++ {
			r, trace = lane.RunSeedTrace(f, seed, sim.RandomWalk{}, opts)
		}
		if !r.Failed() {
			t.Fatalf("%s %s: no failing seed in 200", c.family, c.mutant)
		}
		if sum := sha256.Sum256([]byte(trace)); trace == "" || hex.EncodeToString(sum[:]) != r.TraceSHA {
			t.Fatalf("%s seed %d: Lean failing seed's hash %q is not its trace's (%d bytes)", c.family, r.Seed, r.TraceSHA, len(trace))
		}
		rp := ReplaySeed(f, r.Seed, sim.RandomWalk{}, opts)
		if !rp.Failed() || rp.TraceSHA != r.TraceSHA || len(rp.Coverage.Tuples) == 0 {
			t.Fatalf("%s seed %d: ReplaySeed under Lean gave hash %q and %d tuples: want %s and some", c.family, r.Seed,
				rp.TraceSHA, len(rp.Coverage.Tuples), r.TraceSHA)
		}
	}
}
