package scenarios

import (
	"cmp"
	"slices"
	"sync"
	"time"

	"github.com/podsim/podsim/sim"
)

// GateStrategy is a named scheduling strategy the gate runs every mutant
// under.
type GateStrategy struct {
	Name     string
	Strategy sim.Strategy
}

// GateStrategies are simrun's two strategies with its defaults: a uniform
// random walk and PCT of depth 3 over 2,000 scheduling points.
func GateStrategies() []GateStrategy {
	return []GateStrategy{{"random", sim.RandomWalk{}}, {"pct", sim.PCT{Depth: 3, Steps: 2000}}}
}

// GateStartStride separates the seed ranges of the gate's start seeds, so
// the detections measured from different starts are independent.
const GateStartStride = 1_000_000

// GateOptions bound one gate run.
type GateOptions struct {
	// Seeds is the budget from each start: seeds start .. start+Seeds-1,
	// each run against every family of the mutant under every strategy.
	Seeds uint64
	// StartSeeds is how many starts (0, GateStartStride, 2·GateStartStride,
	// …) the median seeds-to-detection is taken over; at least 1.
	StartSeeds int
	// Parallel runs that many seeds at once; the report is the same at any
	// value (each run is deterministic and the earliest failure wins).
	Parallel int
	// Mutants restricts the gate to these names; empty means Mutants().
	Mutants []string
}

// GateRun is one run: a seed of a family under a strategy.
type GateRun struct {
	Family, Strategy string
	Seed             uint64
}

// GateDetection is what the gate found from one start seed.
type GateDetection struct {
	Caught bool
	// Runs is the runs made until the first failure (1-based: 1 means the
	// very first run failed), or every run of the budget if none failed.
	Runs  int
	First GateRun
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

// GateRow is one mutant's verdict.
type GateRow struct {
	Mutant Mutant
	// Starts holds one detection per start seed.
	Starts []GateDetection
	Wall   time.Duration
}

// Caught reports that every start seed found the mutant within budget.
func (r GateRow) Caught() bool {
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
func (r GateRow) MedianRuns() int {
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

// gateRuns lists a mutant's runs from start, in the order the gate makes
// them: seed by seed, each family, each strategy.
func gateRuns(m Mutant, start, seeds uint64) []GateRun {
	var out []GateRun
	for s := start; s < start+seeds; s++ {
		for _, fam := range m.Families {
			for _, st := range GateStrategies() {
				out = append(out, GateRun{Family: fam, Strategy: st.Name, Seed: s})
			}
		}
	}
	return out
}

// RunGateRun runs one gate run with the mutant called mutant ("" for the
// correct code).
func RunGateRun(run GateRun, mutant string) (Result, Plan) {
	fam, _ := gateFamily(run.Family)
	strategy := gateStrategy(run.Strategy)
	r, w := runSeed(fam, run.Seed, strategy, CheckOptions{Mutant: mutant})
	return r, w.plan
}

func gateFamily(name string) (Family, bool) {
	for _, f := range Families() {
		if f.Name == name {
			return f, true
		}
	}
	return Family{}, false
}

// firstFailure runs runs in batches of parallel and returns the index of
// the earliest failing one with its result and plan, or -1. Later runs of
// the batch that holds it are made and ignored, so the answer does not
// depend on parallel.
func firstFailure(runs []GateRun, mutant string, parallel int) (int, Result, Plan) {
	parallel = max(parallel, 1)
	for lo := 0; lo < len(runs); lo += parallel {
		batch := runs[lo:min(lo+parallel, len(runs))]
		results := make([]Result, len(batch))
		plans := make([]Plan, len(batch))
		var wg sync.WaitGroup
		for i := range batch {
			wg.Add(1)
			go func() {
				defer wg.Done()
				results[i], plans[i] = RunGateRun(batch[i], mutant)
			}()
		}
		wg.Wait()
		for i, r := range results {
			if r.Failed() {
				return lo + i, r, plans[i]
			}
		}
	}
	return -1, Result{}, Plan{}
}

// detect runs m from start until its first failure or the budget's end.
func detect(m Mutant, start uint64, opts GateOptions) GateDetection {
	runs := gateRuns(m, start, opts.Seeds)
	i, r, plan := firstFailure(runs, m.Name, opts.Parallel)
	if i < 0 {
		return GateDetection{Runs: len(runs)}
	}
	return GateDetection{Caught: true, Runs: i + 1, First: runs[i], Invariants: firedInvariants(r),
		PlanLength: len(plan.Actions), ShrunkLength: -1}
}

// MaxGateStory is the longest shrunk counterexample the gate accepts as a
// readable story (issue 7: ≤ 15 actions).
const MaxGateStory = 15

// GateShrinkRuns bounds the shrink of each mutant's first detection.
const GateShrinkRuns = 600

// shrunkLength shrinks a detection's failing run and returns its story's
// length in actions, or -1 if the run cannot be shrunk (it no longer
// fails: never for a deterministic run).
func shrunkLength(d GateDetection, mutant string) int {
	fam, _ := gateFamily(d.First.Family)
	strategy := gateStrategy(d.First.Strategy)
	opts := CheckOptions{Mutant: mutant}
	c, _ := RecordSeed(fam, d.First.Seed, strategy, opts)
	s, err := Shrink(c, strategy, opts, ShrinkOptions{MaxRuns: GateShrinkRuns})
	if err != nil {
		return -1
	}
	return len(s.Case.Plan.Actions)
}

func gateStrategy(name string) sim.Strategy {
	for _, st := range GateStrategies() {
		if st.Name == name {
			return st.Strategy
		}
	}
	return nil
}

// firedInvariants names what a failing run tripped, distinct, in order.
func firedInvariants(r Result) []string {
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

// Gate runs every selected mutant against its families and strategies from
// each start seed. Unknown names in opts.Mutants are an *UnknownMutantError.
// Wall times are measured for the report only; nothing else depends on them.
func Gate(opts GateOptions) ([]GateRow, error) {
	selected, err := selectMutants(opts.Mutants)
	if err != nil {
		return nil, err
	}
	var rows []GateRow
	for _, m := range selected {
		began := time.Now()
		row := GateRow{Mutant: m}
		for k := range max(opts.StartSeeds, 1) {
			row.Starts = append(row.Starts, detect(m, uint64(k)*GateStartStride, opts))
		}
		if d := &row.Starts[0]; d.Caught {
			d.ShrunkLength = shrunkLength(*d, m.Name)
		}
		row.Wall = time.Since(began)
		rows = append(rows, row)
	}
	return rows, nil
}

func selectMutants(names []string) ([]Mutant, error) {
	if len(names) == 0 {
		return Mutants(), nil
	}
	var out []Mutant
	for _, name := range names {
		m, ok := MutantNamed(name)
		if !ok {
			return nil, &UnknownMutantError{Name: name}
		}
		out = append(out, m)
	}
	return out, nil
}

// CorrectCodeCheck runs the correct code on seeds [0, seeds) of every
// family under every gate strategy and returns the failing runs (the gate
// fails if there is any), sorted, and how many runs were made.
func CorrectCodeCheck(seeds uint64, parallel int) ([]GateRun, int) {
	var runs []GateRun
	for _, f := range Families() {
		runs = append(runs, gateRuns(Mutant{Families: []string{f.Name}}, 0, seeds)...)
	}
	total := len(runs)
	var failed []GateRun
	for len(runs) > 0 {
		i, _, _ := firstFailure(runs, "", parallel)
		if i < 0 {
			break
		}
		failed = append(failed, runs[i])
		runs = runs[i+1:]
	}
	slices.SortFunc(failed, func(a, b GateRun) int {
		return cmp.Or(cmp.Compare(a.Family, b.Family), cmp.Compare(a.Strategy, b.Strategy), cmp.Compare(a.Seed, b.Seed))
	})
	return failed, total
}
