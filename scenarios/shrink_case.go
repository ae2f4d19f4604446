package scenarios

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/podsim/podsim/sim"
)

// Case is a run as data: the plan and the two recorded streams of choice
// (schedule and faults) fully determine it, under a given strategy and
// commit. A seed is one way to get a Case (RecordSeed); Shrink edits a Case
// and a regression script stores one, so a shrunk failure outlives the
// generator that first produced it.
type Case struct {
	Plan     Plan
	Schedule []int // the scheduler's choices, in draw order; 0 past the end
	Faults   []int // the fake runtime's choices, in draw order; 0 past the end

	// faultBy[i], when known, is the goroutine that drew Faults[i]
	// ("worker/b"): Shrink drops a removed pod's fault choices with it, so
	// the other pods keep theirs. Not part of the run; scripts omit it.
	faultBy []string
}

// Size summarises how big a Case is, for progress lines and reports.
type Size struct {
	Actions, Schedule, Faults int
	NonZero                   int // non-zero choices in both streams: the preemptions and faults left
}

func (s Size) String() string {
	return fmt.Sprintf("%d actions, %d schedule and %d fault choices (%d non-zero)", s.Actions, s.Schedule, s.Faults, s.NonZero)
}

// Size measures c.
func (c Case) Size() Size {
	nz := 0
	for _, v := range slices.Concat(c.Schedule, c.Faults) {
		if v != 0 {
			nz++
		}
	}
	return Size{Actions: len(c.Plan.Actions), Schedule: len(c.Schedule), Faults: len(c.Faults), NonZero: nz}
}

// clone returns a deep copy, so that shrinking passes can edit freely.
func (c Case) clone() Case {
	c.Plan.Actions = slices.Clone(c.Plan.Actions)
	c.Schedule = slices.Clone(c.Schedule)
	c.Faults = slices.Clone(c.Faults)
	c.faultBy = slices.Clone(c.faultBy)
	return c
}

// RecordSeed runs seed of f with its schedule and fault streams recorded,
// and returns the run as a Case with its result. Running the Case again
// (RunCase) gives the same trace.
func RecordSeed(f Family, seed uint64, strategy sim.Strategy, opts CheckOptions) (Case, Result) {
	st := SeedStreams(seed)
	plan := f.Generate(st.Plan)
	c, r := runRecording(Case{Plan: plan}, st.Schedule, st.Faults, strategy, opts)
	r.Seed = seed
	return c, r
}

// RunCase runs c with every oracle; Result.Seed is 0.
func RunCase(c Case, strategy sim.Strategy, opts CheckOptions) Result {
	r, _ := runCaseWorld(c, strategy, opts)
	return r
}

func runCaseWorld(c Case, strategy sim.Strategy, opts CheckOptions, extra ...Oracle) (Result, *World) {
	w := NewWorld(c.Plan, sim.NewReplay(c.Schedule), sim.NewReplay(c.Faults), strategy)
	for _, o := range extra {
		w.Observe(o)
	}
	return judgeWith(w, opts, extra), w
}

// reintroduceMutant switches opts.Mutant on in w before it runs, as a
// seed's run does. The mutant catalogue lands with the mutants branch; at
// that merge this body becomes `return w.reintroduce(mutant)` (the one
// line that wires Shrink, RecordSeed and the scripts to it). Until then no
// mutant exists, and naming one is an error, never a silent correct run.
func reintroduceMutant(_ *World, mutant string) error {
	if mutant == "" {
		return nil
	}
	return fmt.Errorf("scenarios: unknown mutant %q", mutant)
}

// runRecording runs plan c.Plan over the given sources, records the choices
// the run actually drew and returns them as a Case: choices a run never
// reached are dropped, out-of-range ones appear as the value they acted as,
// and trailing zeros go (a replay answers 0 past the end anyway). So the
// returned Case is the same run as the input, written as small as it can be.
func runRecording(c Case, schedule, faults sim.Source, strategy sim.Strategy, opts CheckOptions, extra ...Oracle) (Case, Result) {
	rs, rf := sim.NewRecorder(schedule), &drawRecorder{src: faults}
	w := NewWorld(c.Plan, rs, rf, strategy)
	rf.s = w.S
	for _, o := range extra {
		w.Observe(o)
	}
	r := judgeWith(w, opts, extra)
	out := Case{Plan: c.Plan, Schedule: trimZeros(rs.Choices()), Faults: trimZeros(rf.choices)}
	out.faultBy = rf.by[:len(out.Faults)]
	return out, r
}

// drawRecorder records a Source's draws and the goroutine that made each.
type drawRecorder struct {
	src     sim.Source
	s       *sim.Scheduler
	choices []int
	by      []string
}

func (d *drawRecorder) Intn(n int) int {
	c := d.src.Intn(n)
	d.choices = append(d.choices, c)
	by := ""
	if d.s != nil {
		by = d.s.Goroutine()
	}
	d.by = append(d.by, by)
	return c
}

// judgeWith is judge plus extra oracles' verdicts (tests plant failures
// with them); the extra oracles must already observe w.
func judgeWith(w *World, opts CheckOptions, extra []Oracle) Result {
	if err := reintroduceMutant(w, opts.Mutant); err != nil {
		return Result{Family: w.plan.Family, Err: err}
	}
	r := judge(Family{Name: w.plan.Family}, 0, w, opts)
	for _, o := range extra {
		r.Violations = append(r.Violations, o.Finish(w, r.Err)...)
	}
	return r
}

func trimZeros(xs []int) []int {
	n := len(xs)
	for n > 0 && xs[n-1] == 0 {
		n--
	}
	return xs[:n:n]
}

// FailureKeys names each way r failed, in report order: "scheduler
// deadlock" (or limit, panic, hot-loop) for the scheduler's error, then
// "<oracle> <invariant>" per violation ("safety S3", "liveness L1",
// "workers internal <name of the broken invariant>"). Shrink
// keeps a candidate only if it still fails with the original's first key,
// so minimising never slips from one bug to another.
func FailureKeys(r Result) []string {
	var keys []string
	if r.Err != nil {
		keys = append(keys, "scheduler "+schedulerErrorKind(r.Err))
	}
	for _, v := range r.Violations {
		key := v.Oracle + " " + v.Invariant
		// The workers' own invariants all report as "internal"; their
		// name tells one broken invariant from another.
		if m := workersInvariantName.FindStringSubmatch(v.Message); v.Oracle == "workers" && m != nil {
			key += " " + m[1]
		}
		keys = append(keys, key)
	}
	return keys
}

// workersInvariantName finds the name in "workers: invariant <name> broken".
var workersInvariantName = regexp.MustCompile(`invariant (\S+) broken`)

func schedulerErrorKind(err error) string {
	var (
		dl *sim.DeadlockError
		li *sim.LimitError
		pa *sim.PanicError
		hl *sim.HotLoopError
	)
	switch {
	case errors.As(err, &dl):
		return "deadlock"
	case errors.As(err, &li):
		return li.Kind + "-limit"
	case errors.As(err, &pa):
		return "panic"
	case errors.As(err, &hl):
		return "hot-loop"
	}
	return "error"
}

// Story tells a run as its plan and its verdict: what a human reads to
// understand a shrunk failure.
func Story(plan Plan, r Result) string {
	var b strings.Builder
	b.WriteString(storyOf(plan, r))
	if r.Err != nil {
		fmt.Fprintf(&b, "\n  scheduler: %v", r.Err)
	}
	return b.String()
}
