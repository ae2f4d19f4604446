package guided

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/podsim/podsim/oracle/coverage"
	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/sim"
)

// Runner is what the loop needs of a target: run one input of one family
// and say what the run reached and whether it failed. The simulated
// worlds are one (Loop's); the real kubelet's pod workers (module
// realkubelet) and the real virtual-kubelet controller (module realvk) are
// others. R is the target's own result, which the loop only hands back.
type Runner[R any] interface {
	// Family names the family the runs are of: the loop's own choices
	// for its run g are derived from it and g.
	Family() string
	// Run runs in as the loop's run index. It must be deterministic (the
	// same input gives the same run) and safe to call from several
	// goroutines at once when the loop's parallelism is above 1.
	Run(index uint64, in Input) Ran[R]
}

// Announced is r with start called before each of its runs, with the
// run's index and the input it is given (a tool that must name the run it
// dies in: the gate's sweep). start must be safe to call from several
// goroutines when the loop's parallelism is above 1.
func Announced[R any](r Runner[R], start func(index uint64, in Input)) Runner[R] {
	return announced[R]{r, start}
}

type announced[R any] struct {
	Runner[R]
	start func(uint64, Input)
}

func (a announced[R]) Run(index uint64, in Input) Ran[R] {
	a.start(index, in)
	return a.Runner.Run(index, in)
}

// Ran is one run as the loop sees it.
type Ran[R any] struct {
	// Input is the input as the run drew it: each stream's draws, zeros
	// past their ends (Record), so running it again gives the same run.
	Input    Input
	Coverage coverage.Coverage // the tuples and transitions it reached
	Failed   bool              // a check failed (what a sweep reports)
	Result   R                 // the target's own result, for printing
}

// Step is one run of Walk: its index in the corpus's history, the run,
// how many coverage keys it reached first, whether its input was a fresh
// seed's or a kept entry run again (Options.Replay), and its wall time
// (progress only: nothing the loop decides depends on it).
type Step[R any] struct {
	Index uint64
	Ran[R]
	New    int
	Fresh  bool
	Replay bool
	Took   time.Duration
}

// Walk makes o.Runs guided runs on r over corpus c, Batch at a time, and
// hands each step to emit in index order. It stops early, after the batch
// in flight, when ctx is done, and returns the runs it made; c.Runs counts
// them. o.Check is not read: r carries the target's own options.
func Walk[R any](ctx context.Context, r Runner[R], c *Corpus, o Options, emit func(Step[R])) uint64 {
	var made uint64
	replay := replayQueue(c, o)
	family := r.Family()
	for made < o.Runs && ctx.Err() == nil {
		n := min(uint64(Batch), o.Runs-made)
		steps := make([]Step[R], n)
		ins := make([]Input, n)
		for i := range steps {
			g := c.Runs + uint64(i)
			if len(replay) > 0 {
				steps[i], ins[i], replay = Step[R]{Index: g, Replay: true}, replay[0].Input, replay[1:]
				continue
			}
			rng := sim.NewPCG(sim.Derive(o.Seed, fmt.Sprintf("guided/%s/%d", family, g)))
			in, fresh := next(rng, c, o.Seed, g)
			steps[i], ins[i] = Step[R]{Index: g, Fresh: fresh}, in
		}
		runBatch(r, steps, ins, o)
		for i := range steps {
			steps[i].New = c.Merge(steps[i].Input, steps[i].Coverage)
			if !steps[i].Replay {
				c.count(steps[i].Fresh, steps[i].New > 0)
			}
			emit(steps[i])
		}
		c.Runs += n
		made += n
	}
	return made
}

// runBatch runs ins[i] into steps[i] on r, at most o.Parallel (or
// cap(o.Slots)) at once.
func runBatch[R any](r Runner[R], steps []Step[R], ins []Input, o Options) {
	sem := o.Slots
	if sem == nil {
		sem = make(chan struct{}, max(1, o.Parallel))
	}
	var wg sync.WaitGroup
	for i := range steps {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			began := time.Now()
			steps[i].Ran = r.Run(steps[i].Index, ins[i])
			steps[i].Took = time.Since(began)
		}()
	}
	wg.Wait()
}

// Recording is an input's streams, each recording what a run draws from
// it: a Runner of a target that takes a plan.Streams runs Streams and
// returns Input.
type Recording struct {
	plan, schedule, faults *sim.Recorder
}

// Record returns in's streams, recording.
func Record(in Input) *Recording {
	return &Recording{plan: sim.NewRecorder(in.Plan.source()), schedule: sim.NewRecorder(in.Schedule.source()),
		faults: sim.NewRecorder(in.Faults.source())}
}

// Streams are the sources a run draws from.
func (r *Recording) Streams() plan.Streams {
	return plan.Streams{Plan: r.plan, Schedule: r.schedule, Faults: r.faults}
}

// Input is what the run drew so far: each stream's draws, trailing zeros
// dropped (an unseeded stream answers zeros past its choices).
func (r *Recording) Input() Input {
	s := func(rec *sim.Recorder) Stream { return Stream{Choices: trimZeros(rec.Choices())} }
	return Input{Plan: s(r.plan), Schedule: s(r.schedule), Faults: s(r.faults)}
}

func trimZeros(xs []int) []int {
	n := len(xs)
	for n > 0 && xs[n-1] == 0 {
		n--
	}
	return xs[:n:n]
}

// WalkDir is Walk over the corpus of r's family saved under dir: loaded
// first (empty if none is saved) and saved after; with dir "", over a
// fresh corpus kept nowhere. It returns the corpus.
func WalkDir[R any](ctx context.Context, r Runner[R], dir string, o Options, emit func(Step[R])) (*Corpus, error) {
	c := NewCorpus(r.Family())
	if dir != "" {
		var err error
		if c, err = Load(dir, r.Family()); err != nil {
			return nil, err
		}
	}
	Walk(ctx, r, c, o, emit)
	if dir != "" {
		if err := c.Save(dir); err != nil {
			return nil, err
		}
	}
	return c, nil
}
