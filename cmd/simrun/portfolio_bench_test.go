package main

import (
	"context"
	"testing"

	"github.com/podsim/podsim/plan"
)

// BenchmarkStrategyCostPerSeed: one op is 32 runs of each family (the
// default sweep's families), one run at a time, under the random walk
// (what `simrun run` does by default) and under the portfolio. Compare
// the two with benchstat: the portfolio's cost per seed relative to
// random's decides whether it may be the default (docs/guided.md).
func BenchmarkStrategyCostPerSeed(b *testing.B) {
	p := newSweepPlan(plan.Families(), shard{0, 1}, 0, 32)
	for _, name := range []string{"random", "portfolio"} {
		b.Run(name, func(b *testing.B) {
			f := runFlags{strategy: name, parallel: 1}
			for range b.N {
				if name == "random" {
					strategy, _ := strategyNamed("random", defaultPCTDepth)
					sweep(context.Background(), p, 1, f.worker(strategy), func(outcome) {})
				} else if _, err := portfolioSweep(context.Background(), p, f, func(outcome) {}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
