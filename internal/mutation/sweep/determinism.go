package main

import (
	"fmt"

	"github.com/podsim/podsim/internal/mutation"
	"github.com/podsim/podsim/plan"
)

// Determinism is the strategy a verdict names when a mutant is caught by
// the determinism check rather than by a failing run.
const Determinism = "determinism"

// firstTraces keeps, by family, the trace hash of the random walk's first
// seed, for the determinism check.
type firstTraces map[string]string

// checkDeterminism runs each family's first random-walk seed once more
// and compares its trace with the first run's. Same seed, same bytes is
// podsim's first promise and no oracle judges it: a mutant that lets map
// order (an unsorted range over a map) or anything else besides the seed
// reach a run passes every oracle and still breaks every replay and every
// shrink. Go randomises each range over a map, so a second run in the same
// process takes another order. Families whose first seed was skipped
// (-reach-in: the run cannot reach the mutant) are not checked. rerun
// returns a run's trace hash.
func checkDeterminism(fams []plan.Family, seed uint64, first firstTraces, rerun func(plan.Family, uint64) string, v *mutation.Verdict) {
	for _, f := range fams {
		was, ok := first[f.Name]
		if !ok {
			continue
		}
		if now := rerun(f, seed); now != was {
			v.Killed, v.Strategy, v.Family, v.Seed = true, Determinism, f.Name, seed
			v.Reason = fmt.Sprintf("determinism: seed %d gave trace %.12s, then %.12s on a second run: something besides the seed reaches the run",
				seed, was, now)
			return
		}
	}
}
