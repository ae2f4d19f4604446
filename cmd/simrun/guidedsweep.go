package main

import (
	"context"
	"sync"

	"github.com/podsim/podsim/guided"
)

// A guided sweep runs several families' loops side by side: each loop is
// independent (its own corpus, its choices drawn from --start and its run
// index), so its runs are the same whichever loops run beside it. Lanes
// (--parallel of them) take the families in order; every run of every
// loop holds one of --parallel slots while it runs, so at most --parallel
// runs are in flight in all. The outcomes are handed on as a sequential
// sweep would: family by family, each family's in run order. Those of a
// family ahead of the one being handed on wait, at most guidedWindow of
// them in all (then its lane waits), so memory stays bounded whatever
// --seeds. Each family's corpus is saved under --corpus once its outcomes
// are handed on.

// guidedWindow is how many outcomes of the families ahead may wait.
func guidedWindow(parallel int) int { return max(8192, 1024*parallel) }

// guidedFamily is one family's part of a guided sweep: what its lane has
// made and not yet handed on, and how the loop ended.
type guidedFamily struct {
	outs    []outcome // made, not yet handed on, in run order
	started bool      // a lane took it
	done    bool      // its loop ended (or its corpus could not be read)
	corpus  *guided.Corpus
	err     error // --corpus could not be read
}

// guidedLanes is the state the lanes and the collector share, under mu.
type guidedLanes struct {
	mu     sync.Mutex
	cond   *sync.Cond
	ctx    context.Context
	fams   []guidedFamily
	next   int  // the next family a lane takes
	stopAt int  // no lane takes a family past it (one whose corpus could not be read)
	closed bool // no lane takes another family
	head   int  // the family being handed on: its lane never waits
	held   int  // outcomes waiting, of every family
	window int
}

// guidedSweep runs the guided loop on each family of p, resuming and saving
// each family's corpus under --corpus if set, and hands each outcome to emit
// in the order described above. It returns the runs handed on.
func guidedSweep(ctx context.Context, p sweepPlan, f runFlags, emit func(outcome)) (uint64, error) {
	return guidedSweepWindow(ctx, p, f, guidedWindow(f.parallel), emit)
}

// guidedSweepWindow is guidedSweep with at most window outcomes of the
// families ahead waiting.
func guidedSweepWindow(ctx context.Context, p sweepPlan, f runFlags, window int, emit func(outcome)) (uint64, error) {
	ctx, stop := context.WithCancel(ctx)
	g := &guidedLanes{ctx: ctx, fams: make([]guidedFamily, len(p.families)), stopAt: len(p.families), window: window}
	g.cond = sync.NewCond(&g.mu)
	unwatch := context.AfterFunc(ctx, g.wake)
	slots := make(chan struct{}, max(1, f.parallel))
	var wg sync.WaitGroup
	for range min(max(1, f.parallel), len(p.families)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			g.lane(p, f, slots)
		}()
	}
	defer func() { stop(); wg.Wait(); unwatch() }()
	var made uint64
	for k := range p.families {
		fin, n := g.handOn(k, emit)
		made += n
		if fin.err != nil {
			return made, usagef("--corpus: %v", fin.err)
		}
		if f.corpus != "" && fin.started {
			if err := fin.corpus.Save(f.corpus); err != nil {
				return made, usagef("cannot write --corpus %s: %v", f.corpus, err)
			}
		}
	}
	return made, nil
}

// handOn hands family k's outcomes to emit as they come, until its loop
// has ended (or will never start), and returns how it ended and how many
// it handed on.
func (g *guidedLanes) handOn(k int, emit func(outcome)) (guidedFamily, uint64) {
	var n uint64
	for {
		outs, fin := g.collect(k)
		for _, o := range outs {
			emit(o)
		}
		n += uint64(len(outs))
		if fin != nil {
			return *fin, n
		}
	}
}

// lane runs the loops of the families it takes, one after another.
func (g *guidedLanes) lane(p sweepPlan, f runFlags, slots chan struct{}) {
	opts := f.checkOptions()
	for {
		k, ok := g.take()
		if !ok {
			return
		}
		fam := p.families[k]
		c, err := guided.NewCorpus(fam.Name), error(nil)
		if f.corpus != "" {
			c, err = guided.Load(f.corpus, fam.Name)
		}
		if err == nil {
			guided.Loop(g.ctx, fam, c, guided.Options{Seed: p.start, Runs: p.counts[k], Slots: slots, Check: opts,
				Replay: f.rerunCorpus},
				func(o guided.Outcome) {
					out := guidedOutcome(fam, o, opts, f)
					if f.jsonPath == "" { // only a --json line prints the coverage: a waiting outcome is 5 times smaller without it
						out.res.Coverage.Tuples, out.res.Coverage.Transitions, out.res.Coverage.Near = nil, nil, nil
					}
					g.put(k, out)
				})
		}
		g.finish(k, c, err)
	}
}

// take gives a lane the next family, unless the sweep is stopping.
func (g *guidedLanes) take() (int, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed || g.next >= g.stopAt || g.ctx.Err() != nil {
		g.closed = true
		g.cond.Broadcast()
		return 0, false
	}
	k := g.next
	g.next++
	g.fams[k].started = true
	return k, true
}

// put adds an outcome of family k. A family ahead of the head waits while
// the window is full (an interrupted sweep waits for nothing).
func (g *guidedLanes) put(k int, o outcome) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for k != g.head && g.held >= g.window && g.ctx.Err() == nil {
		g.cond.Wait()
	}
	g.fams[k].outs = append(g.fams[k].outs, o)
	g.held++
	g.cond.Broadcast()
}

// finish records the end of family k's loop.
func (g *guidedLanes) finish(k int, c *guided.Corpus, err error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.fams[k].done, g.fams[k].corpus, g.fams[k].err = true, c, err
	if err != nil {
		g.stopAt = min(g.stopAt, k+1)
	}
	g.cond.Broadcast()
}

// collect makes k the head and waits for its next outcomes; once none is
// left and its loop has ended (or will never start), it also returns how
// the family ended.
func (g *guidedLanes) collect(k int) ([]outcome, *guidedFamily) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.head != k {
		g.head = k
		g.cond.Broadcast() // k's lane may wait in put
	}
	fm := &g.fams[k]
	for len(fm.outs) == 0 && !fm.done && !(g.closed && !fm.started) {
		g.cond.Wait()
	}
	outs := fm.outs
	fm.outs = nil
	g.held -= len(outs)
	if len(outs) > 0 {
		g.cond.Broadcast()
		return outs, nil
	}
	fin := *fm
	*fm = guidedFamily{started: fin.started, done: fin.done} // the corpus is the collector's now
	return nil, &fin
}

// wake wakes every waiter (the sweep was interrupted).
func (g *guidedLanes) wake() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.cond.Broadcast()
}
