package main

import (
	"context"

	"github.com/podsim/podsim/sim"
)

// The portfolio strategy (--strategy portfolio) divides each family's
// budget (--seeds) between the strategies, each on its own seeds, in a
// fixed proportion: the random walk 3/8, PCT at depths 2, 3 and 5 1/8 each,
// the guided loop 2/8 (the random walk takes what rounding leaves). The
// parts run one after another — every family's random seeds, then PCT's,
// then the guided loop — and each result carries its part's strategy, so a
// failure prints the replay command of the strategy that found it. The
// split depends on --seeds alone, every part is deterministic, so the
// results are the same at any --parallel.

// portfolioPart is one strategy's share of a portfolio.
type portfolioPart struct {
	name   string // strategyArg: the strategy as replay's arguments
	depth  int    // PCT's depth; 0 for the others
	eighth uint64 // its share of the budget, in eighths (random: the rest)
}

var portfolioShares = []portfolioPart{{"random", 0, 3}, {"pct", 2, 1}, {"pct", 3, 1}, {"pct", 5, 1}, {"guided", 0, 2}}

// portfolioSplit is each part's seeds out of count per family, and its
// first seed: the parts' seed ranges follow each other from start, so no
// two parts run the same plan (the guided loop's fresh seeds are its loop
// seed + run index).
func portfolioSplit(start, count uint64) (parts []portfolioPart, firsts, counts []uint64) {
	rest := count
	counts = make([]uint64, len(portfolioShares))
	for i, p := range portfolioShares[1:] {
		counts[i+1] = count * p.eighth / 8
		rest -= counts[i+1]
	}
	counts[0] = rest
	next := start
	for _, n := range counts {
		firsts = append(firsts, next)
		next += n
	}
	return portfolioShares, firsts, counts
}

// arg is the part's strategy as replay's arguments (strategyArg: PCT's
// default depth is "pct").
func (p portfolioPart) arg() string { return strategyArg(p.name, p.depth) }

// portfolioSweep runs p's families under every part in turn and hands each
// outcome to emit; it returns the runs made.
func portfolioSweep(ctx context.Context, p sweepPlan, f runFlags, emit func(outcome)) (uint64, error) {
	parts, firsts, counts := portfolioSplit(p.start, p.count)
	var made uint64
	for i, part := range parts {
		if counts[i] == 0 || ctx.Err() != nil {
			continue
		}
		sub := newSweepPlan(p.families, shard{0, 1}, firsts[i], counts[i])
		pf := f // the part's strategy, for recheck's reproduce command and --out's report
		pf.strategy, pf.pctDepth = part.name, defaultPCTDepth
		if part.name == "pct" {
			pf.pctDepth = part.depth
		}
		tag := func(o outcome) {
			o.res.Strategy = part.arg()
			emit(o)
		}
		if part.name == "guided" {
			n, err := guidedSweep(ctx, sub, pf, tag)
			made += n
			if err != nil {
				return made, err
			}
			continue
		}
		var strategy sim.Strategy = sim.RandomWalk{}
		if part.name == "pct" {
			strategy = sim.PCT{Depth: part.depth, Steps: pctSteps}
		}
		made += sweep(ctx, sub, f.parallel, pf.worker(strategy), tag)
	}
	return made, nil
}
