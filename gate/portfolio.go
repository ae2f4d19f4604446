package gate

import (
	"context"
	"strconv"
	"strings"
	"sync"

	"github.com/podsim/podsim/guided"
	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/run"
	"github.com/podsim/podsim/sim"
)

// The gate's portfolio (Options.Portfolio): each seed still makes two runs
// per family, but their strategies follow a fixed cycle of eight slots —
// the random walk three, the guided loop two, PCT at depths 2, 3 and 5 one
// each, the shares of `simrun run --strategy portfolio` — so the budget is
// divided as it is there, at the same cost per seed. A guided run's Seed is
// its index in its family's loop, whose loop seed is the detection's start.
var portfolioSlots = [...]string{"random", "guided", "pct2", "random", "pct3", "guided", "random", "pct5"}

// strategiesAt are the strategies of the i-th seed of a detection.
func strategiesAt(portfolio bool, i uint64) []string {
	if !portfolio {
		return []string{"random", "pct"}
	}
	n := uint64(len(portfolioSlots))
	return []string{portfolioSlots[(2*i)%n], portfolioSlots[(2*i+1)%n]}
}

// strategyNamed is a gate strategy by name: random, pct (depth 3), pctN.
func strategyNamed(name string) sim.Strategy {
	switch {
	case name == "random":
		return sim.RandomWalk{}
	case name == "pct":
		return sim.PCT{Depth: 3, Steps: 2000}
	case strings.HasPrefix(name, "pct"):
		d, _ := strconv.Atoi(strings.TrimPrefix(name, "pct"))
		return sim.PCT{Depth: d, Steps: 2000}
	case name == "guided":
		return guided.Strategy
	}
	return nil
}

// guidedRuns are the guided loops of one detection, one per family, run
// as far as the detection's runs ask (always whole batches, so a loop's
// runs are those of one long loop).
type guidedRuns struct {
	mu       sync.Mutex
	seed     uint64
	opts     run.CheckOptions
	parallel int
	loops    map[string]*guidedLoop
}

type guidedLoop struct {
	corpus *guided.Corpus
	out    []guided.Outcome
}

func newGuidedRuns(seed uint64, opts run.CheckOptions, parallel int) *guidedRuns {
	return &guidedRuns{seed: seed, opts: opts, parallel: parallel, loops: map[string]*guidedLoop{}}
}

// get is run k of family's loop.
func (g *guidedRuns) get(family string, k uint64) guided.Outcome {
	g.mu.Lock()
	defer g.mu.Unlock()
	fam, _ := plan.FamilyNamed(family)
	l := g.loops[family]
	if l == nil {
		l = &guidedLoop{corpus: guided.NewCorpus(family)}
		g.loops[family] = l
	}
	for uint64(len(l.out)) <= k {
		guided.Loop(context.Background(), fam, l.corpus,
			guided.Options{Seed: g.seed, Runs: guided.Batch, Parallel: g.parallel, Check: g.opts},
			func(o guided.Outcome) { l.out = append(l.out, o) })
	}
	return l.out[k]
}

// guidedRun is the result, plan and input token of a guided gate run.
func (g *guidedRuns) run(gr Run) (run.Result, plan.Plan, string) {
	o := g.get(gr.Family, gr.Seed)
	fam, _ := plan.FamilyNamed(gr.Family)
	return o.Result, fam.Generate(sim.NewReplay(o.Input.Plan.Choices)), o.Input.Token()
}
