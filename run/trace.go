package run

import (
	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/sim"
)

// RunSeedTrace is RunSeed that also returns the canonical trace when the
// seed fails (and "" when it passes, so a sweep keeps no trace of the
// passing majority). A sweep re-runs each failing seed and, if the second
// trace differs, names the first record at which the two runs part: the
// evidence of nondeterminism (docs/design.md "Determinism contract").
func RunSeedTrace(f plan.Family, seed uint64, strategy sim.Strategy, opts CheckOptions) (Result, string) {
	return (*Lane)(nil).RunSeedTrace(f, seed, strategy, opts)
}

// RunSeedTrace is run.RunSeedTrace on the lane's reused structures (nil:
// fresh ones): the same result and trace.
func (l *Lane) RunSeedTrace(f plan.Family, seed uint64, strategy sim.Strategy, opts CheckOptions) (Result, string) {
	r, s, _ := runSeedOn(l, f, seed, strategy, opts)
	defer s.Recycle() // the next seed reuses the trace buffer
	if !r.Failed() {
		return r, ""
	}
	return r, s.Trace()
}
