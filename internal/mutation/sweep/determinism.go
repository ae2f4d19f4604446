package main

import (
	"fmt"

	"github.com/podsim/podsim/internal/mutation"
	"github.com/podsim/podsim/plan"
)

// Determinism is the strategy a verdict names when a mutant is caught by
// the determinism check rather than by a failing run.
const Determinism = "determinism"

// firstTraces keeps the trace hash of each random-walk run the
// determinism check will repeat, by family, in seed order.
type firstTraces map[string][]seedTrace

type seedTrace struct {
	seed  uint64
	trace string
}

// checkDeterminism runs the recorded runs once more, seed by seed (each
// family's first, then each one's second, …), and compares every trace
// with the first run's. Same seed, same bytes is podsim's first promise
// and no oracle judges it: a mutant that lets map order (an unsorted range
// over a map) or anything else besides the seed reach a run passes every
// oracle and still breaks every replay and every shrink. Go randomises
// each range over a map, so a second run in the same process may take
// another order; it may also take the same one, so the check repeats
// several seeds a family (sweep -determinism). Families whose runs were
// skipped (-reach-in: the run cannot reach the mutant) are not checked.
// rerun returns a run's trace hash.
func checkDeterminism(fams []plan.Family, first firstTraces, rerun func(plan.Family, uint64) string, v *mutation.Verdict) {
	for i := 0; ; i++ {
		more := false
		for _, f := range fams {
			if i >= len(first[f.Name]) {
				continue
			}
			more = true
			was := first[f.Name][i]
			if now := rerun(f, was.seed); now != was.trace {
				v.Killed, v.Strategy, v.Family, v.Seed = true, Determinism, f.Name, was.seed
				v.Reason = fmt.Sprintf("determinism: seed %d gave trace %.12s, then %.12s on a second run: something besides the seed reaches the run",
					was.seed, was.trace, now)
				return
			}
		}
		if !more {
			return
		}
	}
}
