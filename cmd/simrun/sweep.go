package main

import (
	"context"
	"sync"
	"time"

	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/run"
)

// sweepPlan is the seeds of a run, generated lazily: job i is family
// i / perFamily, the shard's (i % perFamily)-th seed of [start,
// start+count). Nothing is materialised, so --seeds 100000000 costs no
// memory up front.
type sweepPlan struct {
	families     []plan.Family
	sh           shard
	start, count uint64
	perFamily    uint64 // the shard's seeds per family
}

func newSweepPlan(fams []plan.Family, sh shard, start, count uint64) sweepPlan {
	return sweepPlan{families: fams, sh: sh, start: start, count: count, perFamily: sh.count(count)}
}

func (p sweepPlan) total() uint64 { return uint64(len(p.families)) * p.perFamily }

// job is one seed of one family.
type job struct {
	family plan.Family
	seed   uint64
}

func (p sweepPlan) job(i uint64) job {
	return job{p.families[i/p.perFamily], p.sh.seed(p.start, i%p.perFamily)}
}

// outcome is a job done: its result, the worker time it took and the
// lines recheck wants printed.
type outcome struct {
	i     uint64
	res   run.Result
	took  time.Duration
	notes []string
}

// sweep runs the plan's jobs on parallel workers until they are done or
// ctx is cancelled (the jobs in flight then finish), and hands each
// outcome to emit in job order, whatever the parallelism: each run is
// independent and deterministic, so what emit sees is the same at any
// --parallel. A job is handed out only while fewer than window jobs are
// out of order, so at most window outcomes wait in the reorder buffer:
// memory is bounded whatever the plan's size. It returns the number of
// jobs emitted (all of them unless ctx was cancelled).
func sweep(ctx context.Context, p sweepPlan, parallel int, work func(job) outcome, emit func(outcome)) uint64 {
	window := max(64, 16*parallel)
	tokens := make(chan struct{}, window)
	next := make(chan uint64)
	done := make(chan outcome, parallel)
	var wg sync.WaitGroup
	for w := 0; w < parallel; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				o := work(p.job(i))
				o.i = i
				done <- o
			}
		}()
	}
	go func() {
		defer close(next)
		for i := uint64(0); i < p.total(); i++ {
			select {
			case tokens <- struct{}{}:
			case <-ctx.Done():
				return
			}
			select {
			case next <- i:
			case <-ctx.Done():
				return
			}
		}
	}()
	go func() { wg.Wait(); close(done) }()
	pending := map[uint64]outcome{} // looked up by index, never ranged over
	var emitted uint64
	for o := range done {
		pending[o.i] = o
		for {
			p, ok := pending[emitted]
			if !ok {
				break
			}
			delete(pending, emitted)
			emit(p)
			emitted++
			<-tokens
		}
	}
	return emitted
}
