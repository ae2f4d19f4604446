package guided

import (
	"context"
	"slices"
	"time"

	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/run"
	"github.com/podsim/podsim/sim"
)

// Batch is how many inputs the loop draws from one state of the corpus and
// runs at once. It is fixed, not tied to the parallelism, so the runs are
// the same at any --parallel.
const Batch = 8

// Strategy is the scheduling strategy of every guided run: a random walk
// whose choices are the input's schedule stream.
var Strategy sim.Strategy = sim.RandomWalk{}

// Options configure a loop.
type Options struct {
	Seed     uint64 // the loop's seed: every choice of the loop comes from it
	Runs     uint64 // runs to make
	Parallel int    // runs at once (results do not depend on it)
	// Check are the simulated target's check options (Loop); Walk does
	// not read them: a Runner carries its target's own.
	Check run.CheckOptions
	// Slots, if not nil, replaces Parallel: a run holds one of its
	// cap(Slots) tokens while it runs, so loops that share it make at most
	// cap(Slots) runs at once between them.
	Slots chan struct{}
	// Replay runs every entry the corpus keeps, rarest first
	// (Corpus.ReplayOrder), before the loop draws inputs of its own: the
	// corpus was grown on other code (the last commit's, the correct
	// code's) and this code may fail where that code passed.
	Replay bool
	// ReplayByAge replays the kept entries oldest first instead (the
	// measured control of the rarest-first order).
	ReplayByAge bool
}

// Outcome is one guided run: its index in the corpus's history (the
// "seed" of the results), the input as the run drew it (replaying it gives
// the same run), its result and how much new coverage it brought.
type Outcome struct {
	Index  uint64
	Input  Input
	Result run.Result
	New    int
	Fresh  bool          // a fresh seed's input, not a mutation
	Replay bool          // a kept entry run again (Options.Replay)
	Trace  string        // the canonical trace of a failing run ("" if it passed)
	Took   time.Duration // wall time of the run (progress and --junit only)
}

// RunInput runs in on family f and returns the input as the run drew it
// (recorded: three choice lists, zeros past their ends) with the result.
func RunInput(f plan.Family, in Input, opts run.CheckOptions) (Input, run.Result) {
	rec, r, _ := runInput(f, in, opts)
	return rec, r
}

// runInput is RunInput that also returns the trace of a failing run.
func runInput(f plan.Family, in Input, opts run.CheckOptions) (Input, run.Result, string) {
	c, planChoices, r, trace := run.RecordStreams(f, in.Streams(), Strategy, opts)
	rec := Input{Plan: Stream{Choices: planChoices}, Schedule: Stream{Choices: c.Schedule}, Faults: Stream{Choices: c.Faults}}
	return rec, r, trace
}

// Case is the recorded input as a run.Case (the plan it generates and its
// schedule and fault choices), for shrinking.
func Case(f plan.Family, in Input, opts run.CheckOptions) (run.Case, run.Result) {
	c, _, r, _ := run.RecordStreams(f, in.Streams(), Strategy, opts)
	return c, r
}

// Replay runs in again (the recorded input of a guided run) with the trace,
// the timeline and the plan.
func Replay(f plan.Family, in Input, opts run.CheckOptions) run.Replayed {
	c, _ := Case(f, in, opts)
	rp := run.ReplayCase(c, Strategy, opts)
	rp.Family, rp.Input = f.Name, in.Token()
	return rp
}

// Loop makes o.Runs guided runs of f on the simulated target over corpus
// c, Batch at a time, and hands each outcome to emit in index order. It
// stops early, after the batch in flight, when ctx is done, and returns
// the runs it made; c.Runs counts them. It is Walk over the simulated
// target (simRunner).
func Loop(ctx context.Context, f plan.Family, c *Corpus, o Options, emit func(Outcome)) uint64 {
	check := o.Check
	// The corpus keeps near misses' owners; near misses run the coverage
	// tracker, so a Lean check (no trace hash for a passing run) still
	// gives the corpus every run's tuples.
	check.NearMisses = true
	return Walk(ctx, simRunner{f, check}, c, o, func(s Step[simRun]) {
		emit(Outcome{Index: s.Index, Input: s.Input, Result: s.Result.Result, New: s.New, Fresh: s.Fresh, Replay: s.Replay,
			Trace: s.Result.trace, Took: s.Took})
	})
}

// simRunner is the simulated target as a Runner: family f's worlds,
// judged with opts.
type simRunner struct {
	f    plan.Family
	opts run.CheckOptions
}

// simRun is a simulated run's result and, if it failed, its canonical
// trace.
type simRun struct {
	run.Result
	trace string
}

func (s simRunner) Family() string { return s.f.Name }

// Run runs in; the result carries the loop's index as its seed and, if it
// failed, the recorded input's token.
func (s simRunner) Run(index uint64, in Input) Ran[simRun] {
	rec, r, trace := runInput(s.f, in, s.opts)
	r.Seed = index
	if r.Failed() {
		r.Input = rec.Token()
	}
	return Ran[simRun]{Input: rec, Coverage: r.Coverage, Failed: r.Failed(), Result: simRun{r, trace}}
}

// replayQueue is the kept entries a loop runs again first, in the order
// o asks for; none without o.Replay.
func replayQueue(c *Corpus, o Options) []Entry {
	switch {
	case !o.Replay:
		return nil
	case o.ReplayByAge:
		return slices.Clone(c.Entries)
	}
	return c.ReplayOrder()
}

// count adds one run to the yield of its kind.
func (c *Corpus) count(fresh, hit bool) {
	h := uint64(0)
	if hit {
		h = 1
	}
	if fresh {
		c.FreshRuns, c.FreshHits = c.FreshRuns+1, c.FreshHits+h
	} else {
		c.MutatedRuns, c.MutatedHits = c.MutatedRuns+1, c.MutatedHits+h
	}
}
