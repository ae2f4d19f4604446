package run

import (
	"github.com/podsim/podsim/oracle"
	"github.com/podsim/podsim/oracle/conform"
	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/sim"
)

// Lane is what one lane of a sweep (one goroutine running seeds one after
// another) reuses from seed to seed instead of building afresh: the
// per-seed structures of the oracles, emptied by their reuse forms
// (conform.Reuse, …) before each seed, so that a seed run on a lane gives
// exactly the result RunSeed gives it (TestLaneSeedsAreFreshSeeds). A Lane
// belongs to one goroutine; parallel lanes each have their own. The zero
// value is ready; a nil *Lane builds everything afresh (RunSeed).
type Lane struct {
	conform oracle.Oracle
	// leak names a structure the lane reuses without emptying it: a
	// deliberately broken lane, for the test that shows
	// TestLaneSeedsAreFreshSeeds' comparison catches a leak. "" in use.
	leak string
}

// RunSeed is run.RunSeed on the lane's reused structures: the same result.
func (l *Lane) RunSeed(f plan.Family, seed uint64, strategy sim.Strategy, opts CheckOptions) Result {
	r, s, _ := runSeedOn(l, f, seed, strategy, opts)
	s.Recycle()
	return r
}

// conformFor is the plan-conformance oracle for a run of p.
func (l *Lane) conformFor(p plan.Plan) oracle.Oracle {
	switch {
	case l == nil:
		return conform.New(p)
	case l.conform == nil:
		l.conform = conform.New(p)
	case l.leak != "conform":
		l.conform = conform.Reuse(l.conform, p)
	}
	return l.conform
}
