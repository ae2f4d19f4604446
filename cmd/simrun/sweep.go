package main

import (
	"context"
	"slices"
	"time"

	"github.com/podsim/podsim/internal/lanes"
	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/run"
)

// sweepPlan is the seeds of a run, generated lazily: family k runs the
// shard's seeds of [start, start+counts[k]), its jobs after those of
// families 0..k-1. Nothing is materialised, so --seeds 100000000 costs no
// memory up front.
type sweepPlan struct {
	families []plan.Family
	sh       shard
	start    uint64
	counts   []uint64 // seeds per family (before sharding), one per family
	jobs     []uint64 // the shard's jobs of families 0..k, cumulative
	count    uint64   // every family's count when they are equal (newSweepPlan), else 0
}

// newSweepPlan runs count seeds of every family.
func newSweepPlan(fams []plan.Family, sh shard, start, count uint64) sweepPlan {
	counts := make([]uint64, len(fams))
	for k := range counts {
		counts[k] = count
	}
	p := newSweepPlanOf(fams, sh, start, counts)
	p.count = count
	return p
}

// newSweepPlanOf runs counts[k] seeds of family k.
func newSweepPlanOf(fams []plan.Family, sh shard, start uint64, counts []uint64) sweepPlan {
	p := sweepPlan{families: fams, sh: sh, start: start, counts: counts, jobs: make([]uint64, len(fams))}
	var sum uint64
	for k, c := range counts {
		sum += sh.count(c)
		p.jobs[k] = sum
	}
	return p
}

// defaultSeeds is run's budget per family when --seeds is not given: see
// defaultSeedsUsage for why it is enough. A family whose declared minimum
// sweep (plan.Family.MinimumSeeds) is larger runs its minimum, so its
// coverage marks are judged, not merely warned about.
const defaultSeeds = 500

const defaultSeedsUsage = "seeds per family, 1 to 100,000,000 (default 500, or a family's minimum sweep when larger: simrun list)"

// defaultCounts is the default budget of each of fams.
func defaultCounts(fams []plan.Family) []uint64 {
	counts := make([]uint64, len(fams))
	for k, f := range fams {
		counts[k] = max(defaultSeeds, f.MinimumSeeds())
	}
	return counts
}

func (p sweepPlan) total() uint64 {
	if len(p.jobs) == 0 {
		return 0
	}
	return p.jobs[len(p.jobs)-1]
}

// job is one seed of one family.
type job struct {
	family plan.Family
	seed   uint64
}

func (p sweepPlan) job(i uint64) job {
	k, _ := slices.BinarySearch(p.jobs, i+1) // the first family whose jobs reach past i
	before := uint64(0)
	if k > 0 {
		before = p.jobs[k-1]
	}
	return job{p.families[k], p.sh.seed(p.start, i-before)}
}

// outcome is a job done: its result, the worker time it took and the
// lines recheck wants printed.
type outcome struct {
	res   run.Result
	took  time.Duration
	notes []string
}

// sweep runs the plan's jobs on parallel workers (lanes.Indexed) until
// they are done or ctx is cancelled (the jobs in flight then finish), and
// hands each outcome to emit in job order, whatever the parallelism: each
// run is independent and deterministic, so what emit sees is the same at
// any --parallel. At most max(64, 16×parallel) outcomes wait out of order,
// so memory is bounded whatever the plan's size. It returns the number of
// jobs emitted (all of them unless ctx was cancelled). Each worker runs its
// jobs on a run.Lane of its own, reused from job to job.
func sweep(ctx context.Context, p sweepPlan, parallel int, work func(*run.Lane, job) outcome, emit func(outcome)) uint64 {
	ls := make([]run.Lane, parallel)
	return lanes.IndexedOn(ctx, p.total(), parallel, max(64, 16*parallel),
		func(k int, i uint64) outcome { return work(&ls[k], p.job(i)) }, emit)
}
