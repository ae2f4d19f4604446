package shrink

import (
	"fmt"
	"slices"

	"github.com/podsim/podsim/oracle"
	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/run"
	"github.com/podsim/podsim/sim"
)

// DefaultRuns bounds the candidate runs of one Shrink: at a few
// milliseconds a run, a shrink takes seconds, not minutes.
const DefaultRuns = 2000

// Options bound and observe a shrink.
type Options struct {
	// MaxRuns bounds the candidate runs; 0 means DefaultRuns.
	MaxRuns int
	// Progress, if set, is called after every candidate run.
	Progress func(Progress)
}

// Progress is where a shrink stands.
type Progress struct {
	Runs, MaxRuns int
	Best          run.Size // the smallest failing case so far
}

// Shrunk is the outcome of Shrink.
type Shrunk struct {
	Original, Case run.Case
	// Target is the failure kept throughout (FailureKeys' first key of the
	// original run, e.g. "safety S3").
	Target string
	// Result is the verdict of the shrunk case.
	Result run.Result
	// Runs is the candidate runs spent; Exhausted says the budget ran out
	// before no pass could shrink further.
	Runs      int
	Exhausted bool
}

// ErrNothingToShrink is Shrink's answer for a case that passes.
var ErrNothingToShrink = fmt.Errorf("shrink: the run passes every check: nothing to shrink")

// Shrink minimises a failing Case: fewer and simpler actions, fewer
// preemptions, fewer faults, while the run keeps failing with the same
// first failure (Target). It is deterministic: the same case, strategy and
// options give the same result (as long as no porcupine search hits its
// wall-clock timeout, which only histories far larger than a shrunk
// story's risk).
func Shrink(c run.Case, strategy sim.Strategy, opts run.CheckOptions, so Options) (Shrunk, error) {
	return shrinkWith(c, strategy, opts, so, nil)
}

// shrinkWith is Shrink with extra oracles made fresh for every run (tests
// plant failures with them).
func shrinkWith(c run.Case, strategy sim.Strategy, opts run.CheckOptions, so Options, extra func() []oracle.Oracle) (Shrunk, error) {
	oracles := func() []oracle.Oracle {
		if extra == nil {
			return nil
		}
		return extra()
	}
	first := run.RunCase(c, strategy, opts, oracles()...)
	if !first.Failed() {
		return Shrunk{}, ErrNothingToShrink
	}
	target := run.FailureKeys(first)[0]
	lean := opts
	lean.Lean = true // a candidate's failure keys are all the search reads: no trace hash, no tuples
	fails := func(cand run.Case) (run.Case, bool) {
		rec, r := run.RecordCase(cand, strategy, lean, oracles()...)
		return rec, slices.Contains(run.FailureKeys(r), target)
	}
	m := Minimize(c, fails, so)
	out := Shrunk{Original: c, Case: m.Case, Target: target, Runs: m.Runs, Exhausted: m.Exhausted}
	out.Result = run.RunCase(m.Case, strategy, opts, oracles()...)
	return out, nil
}

// Minimized is the outcome of Minimize.
type Minimized struct {
	Case      run.Case
	Runs      int
	Exhausted bool
}

// Minimize is Shrink's search, over any predicate: fails runs a candidate
// and says whether it still fails, returning the candidate as the run
// actually used it (or unchanged). A candidate is kept only if it fails and
// is strictly smaller (cost), so the search ends; it also stops after
// MaxRuns predicate calls. Passes, repeated until none shrinks further:
// remove chunks of actions then single actions; simplify the plan's knobs
// and each action's fields; truncate and zero chunks of each choice stream.
func Minimize(c run.Case, fails func(run.Case) (run.Case, bool), so Options) Minimized {
	s := &shrinker{best: c.Clone(), fails: fails, max: so.MaxRuns, progress: so.Progress}
	if s.max <= 0 {
		s.max = DefaultRuns
	}
	for !s.exhausted() {
		before := cost(s.best)
		s.removeActions()
		s.simplifyPlan()
		s.simplifyActions()
		s.shrinkChoices(func(c *run.Case) *[]int { return &c.Schedule })
		s.shrinkChoices(func(c *run.Case) *[]int { return &c.Faults })
		if slices.Compare(cost(s.best), before) >= 0 {
			break
		}
	}
	return Minimized{Case: s.best, Runs: s.runs, Exhausted: s.exhausted()}
}

type shrinker struct {
	best     run.Case
	fails    func(run.Case) (run.Case, bool)
	runs     int
	max      int
	progress func(Progress)
}

func (s *shrinker) exhausted() bool { return s.runs >= s.max }

// try runs cand and keeps it if it fails and is smaller; it reports
// whether it kept it. Past the budget it tries nothing.
func (s *shrinker) try(cand run.Case) bool {
	if s.exhausted() || slices.Compare(cost(cand), cost(s.best)) >= 0 {
		return false
	}
	s.runs++
	got, ok := s.fails(cand)
	kept := ok && slices.Compare(cost(got), cost(s.best)) < 0
	if kept {
		s.best = got.Clone()
	}
	if s.progress != nil {
		s.progress(Progress{Runs: s.runs, MaxRuns: s.max, Best: s.best.Size()})
	}
	return kept
}

// cost orders cases: fewer actions first, then fewer clients, simpler
// actions and knobs, fewer non-zero choices, smaller choices, shorter
// streams.
func cost(c run.Case) []int64 {
	var fields, sum int64
	for _, a := range c.Plan.Actions {
		fields += actionComplexity(a)
	}
	f := c.Plan.Faults
	fields += int64(f.ErrorRate + f.SlowRate + f.IgnoreCancel + f.TerminalRate)
	fields += int64(f.MaxDelay.Milliseconds())
	for _, v := range slices.Concat(c.Schedule, c.Faults) {
		sum += int64(v)
	}
	sz := c.Size()
	return []int64{int64(sz.Actions), int64(c.Plan.Clients), fields, int64(sz.NonZero), sum, int64(sz.Schedule + sz.Faults)}
}

func actionComplexity(a plan.Action) int64 {
	n := a.At.Milliseconds() + int64(a.Client) + max(a.Grace, 0) + a.SpecGrace
	if a.Evict {
		n++
	}
	if a.Static {
		n++
	}
	return n
}
