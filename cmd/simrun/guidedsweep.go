package main

import (
	"context"

	"github.com/podsim/podsim/guided"
	"github.com/podsim/podsim/internal/lanes"
)

// A guided sweep runs several families' loops side by side (lanes.Grouped):
// each loop is independent (its own corpus, its choices drawn from --start
// and its run index), so its runs are the same whichever loops run beside
// it. Lanes (--parallel of them) take the families in order; every run of
// every loop holds one of --parallel slots while it runs, so at most
// --parallel runs are in flight in all. The outcomes are handed on as a
// sequential sweep would: family by family, each family's in run order.
// Those of a family ahead of the one being handed on wait, at most
// guidedWindow of them in all (then its lane waits), so memory stays
// bounded whatever --seeds. Each family's corpus is saved under --corpus
// once its outcomes are handed on.

// guidedWindow is how many outcomes of the families ahead may wait.
func guidedWindow(parallel int) int { return max(8192, 1024*parallel) }

// guidedSweep runs the guided loop on each family of p, resuming and saving
// each family's corpus under --corpus if set, and hands each outcome to emit
// in the order described above. It returns the runs handed on.
func guidedSweep(ctx context.Context, p sweepPlan, f runFlags, emit func(outcome)) (uint64, error) {
	return guidedSweepWindow(ctx, p, f, guidedWindow(f.parallel), emit)
}

// guidedSweepWindow is guidedSweep with at most window outcomes of the
// families ahead waiting.
func guidedSweepWindow(ctx context.Context, p sweepPlan, f runFlags, window int, emit func(outcome)) (uint64, error) {
	slots := make(chan struct{}, max(1, f.parallel))
	var made uint64
	err := lanes.Grouped(ctx, len(p.families), f.parallel, window,
		func(ctx context.Context, k int, put func(outcome)) (*guided.Corpus, error) {
			return guidedFamily(ctx, p, k, f, slots, put)
		},
		func(o outcome) { emit(o); made++ },
		func(k int, fin lanes.Ended[*guided.Corpus]) error {
			if fin.Err != nil {
				return usagef("--corpus: %v", fin.Err)
			}
			if f.corpus != "" && fin.Started {
				if err := fin.Result.Save(f.corpus); err != nil {
					return usagef("cannot write --corpus %s: %v", f.corpus, err)
				}
			}
			return nil
		})
	return made, err
}

// guidedFamily runs family k's loop, its runs holding slots, and puts its
// outcomes; it returns the family's corpus, or why --corpus could not be
// read.
func guidedFamily(ctx context.Context, p sweepPlan, k int, f runFlags, slots chan struct{}, put func(outcome)) (*guided.Corpus, error) {
	opts := f.checkOptions()
	fam := p.families[k]
	c, err := guided.NewCorpus(fam.Name), error(nil)
	if f.corpus != "" {
		c, err = guided.Load(f.corpus, fam.Name)
	}
	if err != nil {
		return c, err
	}
	guided.Loop(ctx, fam, c, guided.Options{Seed: p.start, Runs: p.counts[k], Slots: slots, Check: opts,
		Replay: f.rerunCorpus},
		func(o guided.Outcome) {
			out := guidedOutcome(fam, o, opts, f)
			if f.jsonPath == "" { // only a --json line prints the coverage: a waiting outcome is 5 times smaller without it
				out.res.Coverage.Tuples, out.res.Coverage.Transitions, out.res.Coverage.Near = nil, nil, nil
			}
			put(out)
		})
	return c, nil
}
