package gate

import (
	"cmp"
	"slices"
	"sync"
	"time"

	"github.com/podsim/podsim/guided"
	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/run"
	"github.com/podsim/podsim/shrink"
	"github.com/podsim/podsim/sim"
)

// Strategy is a named scheduling strategy the gate runs every mutant
// under.
type Strategy struct {
	Name     string
	Strategy sim.Strategy
}

// Strategies are simrun's two strategies with its defaults: a uniform
// random walk and PCT of depth 3 over 2,000 scheduling points.
func Strategies() []Strategy {
	return []Strategy{{"random", sim.RandomWalk{}}, {"pct", sim.PCT{Depth: 3, Steps: 2000}}}
}

// StartStride separates the seed ranges of the gate's start seeds, so
// the detections measured from different starts are independent.
const StartStride = 1_000_000

// Options bound one gate run.
type Options struct {
	// Seeds is the budget from each start: seeds start .. start+Seeds-1,
	// each run against every family of the mutant under every strategy.
	Seeds uint64
	// StartSeeds is how many starts (0, StartStride, 2·StartStride,
	// …) the median seeds-to-detection is taken over; at least 1.
	StartSeeds int
	// Parallel runs that many seeds at once; the report is the same at any
	// value (each run is deterministic and the earliest failure wins).
	Parallel int
	// Mutants restricts the gate to these names; empty means Mutants().
	Mutants []string
	// ObservableOnly runs every mutant with the pod workers' internal
	// invariants off (run.CheckOptions.ObservableOnly).
	ObservableOnly bool
	// Portfolio divides each seed's runs between the random walk, PCT at
	// depths 2, 3 and 5 and the guided loop (portfolio.go) instead of
	// random and PCT depth 3.
	Portfolio bool
	// FaultPoints arms the fault points in every run, the correct code's
	// too (run.CheckOptions.FaultPoints).
	FaultPoints bool
	// NoShrink leaves the first detection unshrunk (ShrunkLength -1):
	// for a check that reads detections only, the shrink (up to
	// ShrinkRuns runs per mutant) is a large share of the gate's cost.
	NoShrink bool
}

// checkOptions are the run options of the mutant called mutant. The gate
// reads verdicts, violations and marks, never a trace hash or coverage
// tuples: its runs are Lean (the guided loop's corpus still gets its
// tuples, guided.Loop).
func (o Options) checkOptions(mutant string) run.CheckOptions {
	return run.CheckOptions{Mutant: mutant, ObservableOnly: o.ObservableOnly, FaultPoints: o.FaultPoints, Lean: true}
}

// Run is one run: a seed of a family under a strategy.
type Run struct {
	Family, Strategy string
	Seed             uint64
}

// Detection is what the gate found from one start seed.
type Detection struct {
	Caught bool
	// Runs is the runs made until the first failure (1-based: 1 means the
	// very first run failed), or every run of the budget if none failed.
	Runs  int
	First Run
	// Input is the first failing run's input token when a guided run
	// (replay --input), else "".
	Input string
	// Invariants are the distinct "oracle invariant" names of the first
	// failing run, in the order they fired ("error" for a scheduler error).
	Invariants []string
	// PlanLength is the first failing run's plan, in actions (unshrunk).
	PlanLength int
	// ShrunkLength is that plan's length after Shrink (the story a human
	// reads), or -1 when the gate did not shrink this detection (it shrinks
	// the first start's only) or the shrink failed.
	ShrunkLength int
}

// Row is one mutant's verdict.
type Row struct {
	Mutant run.Mutant
	// Starts holds one detection per start seed.
	Starts []Detection
	Wall   time.Duration
}

// Caught reports that every start seed found the mutant within budget.
func (r Row) Caught() bool {
	for _, d := range r.Starts {
		if !d.Caught {
			return false
		}
	}
	return len(r.Starts) > 0
}

// MedianRuns is the median seeds-to-detection over the start seeds (the
// lower middle for an even count); an uncaught start counts as its whole
// budget.
func (r Row) MedianRuns() int {
	runs := make([]int, len(r.Starts))
	for i, d := range r.Starts {
		runs[i] = d.Runs
	}
	slices.Sort(runs)
	if len(runs) == 0 {
		return 0
	}
	return runs[(len(runs)-1)/2]
}

// RunsFor lists a mutant's runs from start, in the order the gate makes
// them: seed by seed, each family, each strategy.
func RunsFor(m run.Mutant, start, seeds uint64) []Run {
	return runsFor(m, start, seeds, false)
}

// runsFor is RunsFor, under the portfolio's strategies if portfolio (a
// guided run's Seed is its index in its family's loop).
func runsFor(m run.Mutant, start, seeds uint64, portfolio bool) []Run {
	var out []Run
	guidedNext := map[string]uint64{}
	for s := start; s < start+seeds; s++ {
		for _, fam := range m.Families {
			for _, st := range strategiesAt(portfolio, s-start) {
				seed := s
				if st == "guided" {
					seed = guidedNext[fam]
					guidedNext[fam]++
				}
				out = append(out, Run{Family: fam, Strategy: st, Seed: seed})
			}
		}
	}
	return out
}

// RunOne runs one gate run with the mutant called mutant ("" for the
// correct code); not a guided run.
func RunOne(gr Run, mutant string) (run.Result, plan.Plan) {
	return runOne(gr, run.CheckOptions{Mutant: mutant})
}

// runOne is RunOne under opts (the mutant is opts.Mutant).
func runOne(gr Run, opts run.CheckOptions) (run.Result, plan.Plan) {
	fam, _ := plan.FamilyNamed(gr.Family)
	r := run.RunSeed(fam, gr.Seed, gateStrategy(gr.Strategy), opts)
	return r, fam.Generate(plan.SeedStreams(gr.Seed).Plan)
}

// runBatch makes the runs of batch at once and returns their results,
// plans and (guided runs) input tokens in batch order; g makes the guided
// ones, in order, before the others start.
func runBatch(batch []Run, opts run.CheckOptions, g *guidedRuns) ([]run.Result, []plan.Plan, []string) {
	results := make([]run.Result, len(batch))
	plans := make([]plan.Plan, len(batch))
	inputs := make([]string, len(batch))
	var wg sync.WaitGroup
	for i := range batch {
		if batch[i].Strategy == "guided" {
			results[i], plans[i], inputs[i] = g.run(batch[i])
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i], plans[i] = runOne(batch[i], opts)
		}()
	}
	wg.Wait()
	return results, plans, inputs
}

// firstFailure runs runs in batches of parallel and returns the index of
// the earliest failing one with its result, plan and input token (guided),
// or -1. Later runs of the batch that holds it are made and ignored, so
// the answer does not depend on parallel.
func firstFailure(runs []Run, opts run.CheckOptions, parallel int, g *guidedRuns) (int, run.Result, plan.Plan, string) {
	parallel = max(parallel, 1)
	for lo := 0; lo < len(runs); lo += parallel {
		results, plans, inputs := runBatch(runs[lo:min(lo+parallel, len(runs))], opts, g)
		for i, r := range results {
			if r.Failed() {
				return lo + i, r, plans[i], inputs[i]
			}
		}
	}
	return -1, run.Result{}, plan.Plan{}, ""
}

// detect runs m from start until its first failure or the budget's end.
func detect(m run.Mutant, start uint64, opts Options) Detection {
	runs := runsFor(m, start, opts.Seeds, opts.Portfolio)
	co := opts.checkOptions(m.Name)
	i, r, plan, input := firstFailure(runs, co, opts.Parallel, newGuidedRuns(start, co, opts.Parallel))
	if i < 0 {
		return Detection{Runs: len(runs)}
	}
	return Detection{Caught: true, Runs: i + 1, First: runs[i], Input: input, Invariants: firedInvariants(r),
		PlanLength: len(plan.Actions), ShrunkLength: -1}
}

// MaxStory is the longest shrunk counterexample the gate accepts as a
// readable story (issue 7: ≤ 15 actions).
const MaxStory = 15

// ShrinkRuns bounds the shrink of each mutant's first detection.
const ShrinkRuns = 600

// shrunkLength shrinks a detection's failing run and returns its story's
// length in actions, or -1 if the run cannot be shrunk (it no longer
// fails: never for a deterministic run).
func shrunkLength(d Detection, opts run.CheckOptions) int {
	fam, _ := plan.FamilyNamed(d.First.Family)
	strategy := gateStrategy(d.First.Strategy)
	var c run.Case
	if d.Input != "" {
		in, err := guided.ParseToken(d.Input)
		if err != nil {
			return -1
		}
		c, _ = guided.Case(fam, in, opts)
	} else {
		c, _ = run.RecordSeed(fam, d.First.Seed, strategy, opts)
	}
	s, err := shrink.Shrink(c, strategy, opts, shrink.Options{MaxRuns: ShrinkRuns})
	if err != nil {
		return -1
	}
	return len(s.Case.Plan.Actions)
}

func gateStrategy(name string) sim.Strategy { return strategyNamed(name) }

// firedInvariants names what a failing run tripped, distinct, in order.
func firedInvariants(r run.Result) []string {
	var out []string
	if r.Err != nil {
		out = append(out, "error")
	}
	for _, v := range r.Violations {
		name := v.Oracle + " " + v.Invariant
		if !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	return out
}

// Check runs every selected mutant against its families and strategies from
// each start seed. Unknown names in opts.Mutants are an *UnknownMutantError.
// Wall times are measured for the report only; nothing else depends on them.
func Check(opts Options) ([]Row, error) {
	selected, err := selectMutants(opts.Mutants)
	if err != nil {
		return nil, err
	}
	var rows []Row
	for _, m := range selected {
		began := time.Now()
		row := Row{Mutant: m}
		for k := range max(opts.StartSeeds, 1) {
			row.Starts = append(row.Starts, detect(m, uint64(k)*StartStride, opts))
		}
		if d := &row.Starts[0]; d.Caught && !opts.NoShrink {
			d.ShrunkLength = shrunkLength(*d, opts.checkOptions(m.Name))
		}
		row.Wall = time.Since(began)
		rows = append(rows, row)
	}
	return rows, nil
}

func selectMutants(names []string) ([]run.Mutant, error) {
	if len(names) == 0 {
		return run.Mutants(), nil
	}
	var out []run.Mutant
	for _, name := range names {
		m, ok := run.MutantNamed(name)
		if !ok {
			return nil, &run.UnknownMutantError{Name: name}
		}
		out = append(out, m)
	}
	return out, nil
}

// CorrectCodeCheck runs the correct code on seeds [0, seeds) of every
// family under every gate strategy and returns the failing runs (the gate
// fails if there is any), sorted, and how many runs were made.
func CorrectCodeCheck(seeds uint64, parallel int) ([]Run, int) {
	r := CorrectCode(seeds, Options{Parallel: parallel})
	return r.Failed, r.Runs
}

// CorrectReport is the correct code's part of the gate.
type CorrectReport struct {
	Failed []Run // sorted by family, strategy, seed
	// Inputs are the input tokens of the failing guided runs, by index
	// into Failed ("" for a seed's run).
	Inputs []string
	Runs   int
	// Reached counts, per family and coverage mark, the runs that reached
	// the mark (over every strategy).
	Reached map[string]map[string]uint64
}

// CorrectCode is CorrectCodeCheck that also counts the coverage marks
// each family reached, under the portfolio's strategies if opts.Portfolio
// and with the fault points armed if opts.FaultPoints (its other fields
// are the mutants'). Runs are made in batches of opts.Parallel; the report
// does not depend on it.
func CorrectCode(seeds uint64, opts Options) CorrectReport {
	parallel, portfolio := opts.Parallel, opts.Portfolio
	co := run.CheckOptions{FaultPoints: opts.FaultPoints, Lean: true} // checkOptions: the report reads verdicts and marks
	rep := CorrectReport{Reached: map[string]map[string]uint64{}}
	var runs []Run
	for _, f := range plan.Families() {
		runs = append(runs, runsFor(run.Mutant{Families: []string{f.Name}}, 0, seeds, portfolio)...)
		rep.Reached[f.Name] = map[string]uint64{}
	}
	rep.Runs = len(runs)
	parallel = max(parallel, 1)
	g := newGuidedRuns(0, co, parallel)
	type failure struct {
		run   Run
		input string
	}
	var failed []failure
	for lo := 0; lo < len(runs); lo += parallel {
		batch := runs[lo:min(lo+parallel, len(runs))]
		results, _, inputs := runBatch(batch, co, g)
		for i, r := range results {
			if r.Failed() {
				failed = append(failed, failure{batch[i], inputs[i]})
			}
			for _, m := range r.Marks {
				rep.Reached[batch[i].Family][m]++
			}
		}
	}
	slices.SortFunc(failed, func(a, b failure) int {
		return cmp.Or(cmp.Compare(a.run.Family, b.run.Family), cmp.Compare(a.run.Strategy, b.run.Strategy),
			cmp.Compare(a.run.Seed, b.run.Seed))
	})
	for _, f := range failed {
		rep.Failed, rep.Inputs = append(rep.Failed, f.run), append(rep.Inputs, f.input)
	}
	return rep
}
