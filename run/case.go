package run

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/podsim/podsim/oracle"
	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/sim"
	"github.com/podsim/podsim/vkworld"
	"github.com/podsim/podsim/world"
)

// Case is a run as data: the plan and the two recorded streams of choice
// (schedule and faults) fully determine it, under a given strategy and
// commit. A seed is one way to get a Case (RecordSeed); Shrink edits a Case
// and a regression script stores one, so a shrunk failure outlives the
// generator that first produced it.
type Case struct {
	Plan     plan.Plan
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

// Clone returns a deep copy, so that shrinking passes can edit freely.
func (c Case) Clone() Case {
	c.Plan.Actions = slices.Clone(c.Plan.Actions)
	c.Schedule = slices.Clone(c.Schedule)
	c.Faults = slices.Clone(c.Faults)
	c.faultBy = slices.Clone(c.faultBy)
	return c
}

// RecordSeed runs seed of f with its schedule and fault streams recorded,
// and returns the run as a Case with its result. Running the Case again
// (RunCase) gives the same trace.
func RecordSeed(f plan.Family, seed uint64, strategy sim.Strategy, opts CheckOptions) (Case, Result) {
	st := plan.SeedStreams(seed)
	plan := f.Generate(st.Plan)
	c, r := runRecording(Case{Plan: plan}, st.Schedule, st.Faults, strategy, opts)
	r.Seed = seed
	return c, r
}

// ReplayCase is RunCase that also returns the trace, the timeline and the
// plan; its result has every output (opts.Lean is ignored).
func ReplayCase(c Case, strategy sim.Strategy, opts CheckOptions) Replayed {
	opts.Lean = false
	if c.Plan.VK != nil {
		r, w := runVK(c.Plan.Family, 0, c.Plan, sim.NewReplay(c.Schedule), sim.NewReplay(c.Faults), strategy, opts, nil)
		return Replayed{Result: r, Trace: w.S.Trace(), Timeline: w.S.Timeline(), Plan: w.Plan()}
	}
	r, w := runCaseWorld(c, strategy, opts)
	return Replayed{Result: r, Trace: w.S.Trace(), Timeline: w.S.Timeline(), Plan: w.Plan()}
}

// RecordStreams generates f's plan from st.Plan and runs it over
// st.Schedule and st.Faults, all three recorded: the run as a Case and the
// plan stream's draws (trailing zeros dropped), with its result. Replaying
// the three lists gives the same run.
// The fourth result is the canonical trace of a failing run ("" if it
// passed), as RunSeedTrace gives it.
func RecordStreams(f plan.Family, st plan.Streams, strategy sim.Strategy, opts CheckOptions) (Case, []int, Result, string) {
	rp := sim.NewRecorder(st.Plan)
	p := f.Generate(rp)
	c, r, s := runRecordingWorld(Case{Plan: p}, st.Schedule, st.Faults, strategy, opts)
	r.Family = f.Name
	trace := ""
	if r.Failed() {
		trace = s.Trace()
	}
	return c, trimZeros(rp.Choices()), r, trace
}

// RunCase runs c with every oracle, and the extra ones (tests plant
// failures with them); Result.Seed is 0.
func RunCase(c Case, strategy sim.Strategy, opts CheckOptions, extra ...oracle.Oracle) Result {
	if c.Plan.VK != nil {
		r, _ := runVK(c.Plan.Family, 0, c.Plan, sim.NewReplay(c.Schedule), sim.NewReplay(c.Faults), strategy, opts, extra)
		return r
	}
	r, _ := runCaseWorld(c, strategy, opts, extra...)
	return r
}

// RecordCase is RunCase that also returns c as the run used it: the
// choices it never reached dropped (runRecording).
func RecordCase(c Case, strategy sim.Strategy, opts CheckOptions, extra ...oracle.Oracle) (Case, Result) {
	return runRecording(c, sim.NewReplay(c.Schedule), sim.NewReplay(c.Faults), strategy, opts, extra...)
}

func runCaseWorld(c Case, strategy sim.Strategy, opts CheckOptions, extra ...oracle.Oracle) (Result, *world.World) {
	w := world.NewWorld(c.Plan, sim.NewReplay(c.Schedule), sim.NewReplay(c.Faults), strategy)
	return judgeWith(w, opts, extra), w
}

// runRecording runs plan c.Plan over the given sources, records the choices
// the run actually drew and returns them as a Case: choices a run never
// reached are dropped, out-of-range ones appear as the value they acted as,
// and trailing zeros go (a replay answers 0 past the end anyway). So the
// returned Case is the same run as the input, written as small as it can be.
func runRecording(c Case, schedule, faults sim.Source, strategy sim.Strategy, opts CheckOptions, extra ...oracle.Oracle) (Case, Result) {
	out, r, _ := runRecordingWorld(c, schedule, faults, strategy, opts, extra...)
	return out, r
}

// runRecordingWorld is runRecording that also returns the run's scheduler.
func runRecordingWorld(c Case, schedule, faults sim.Source, strategy sim.Strategy, opts CheckOptions,
	extra ...oracle.Oracle) (Case, Result, *sim.Scheduler) {
	rs, rf := sim.NewRecorder(schedule), &drawRecorder{src: faults}
	var r Result
	if c.Plan.VK != nil {
		w := vkworld.NewWorld(c.Plan, rs, rf, strategy)
		rf.s = w.S
		if err := reintroduceVK(w, opts.Mutant); err != nil {
			r = Result{Family: c.Plan.Family, Err: err}
		} else {
			r = judgeVK(c.Plan.Family, 0, w, opts, extra)
		}
	} else {
		w := world.NewWorld(c.Plan, rs, rf, strategy)
		rf.s = w.S
		r = judgeWith(w, opts, extra)
	}
	out := Case{Plan: c.Plan, Schedule: trimZeros(rs.Choices()), Faults: trimZeros(rf.choices)}
	out.faultBy = rf.by[:len(out.Faults)]
	return out, r, rf.s
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

// judgeWith re-introduces the mutant and judges w with extra oracles
// besides the run's own (tests plant failures with them).
func judgeWith(w *world.World, opts CheckOptions, extra []oracle.Oracle) Result {
	if err := reintroduce(w, opts.Mutant); err != nil {
		return Result{Family: w.Plan().Family, Err: err}
	}
	return judge(plan.Family{Name: w.Plan().Family}, 0, w, opts, extra)
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
		keys = append(keys, "scheduler "+SchedulerErrorKind(r.Err))
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

func SchedulerErrorKind(err error) string {
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
func Story(plan plan.Plan, r Result) string {
	var b strings.Builder
	b.WriteString(storyOf(plan, r))
	if r.Err != nil {
		fmt.Fprintf(&b, "\n  scheduler: %v", r.Err)
	}
	return b.String()
}

// WithoutGonePodsFaults is c without the fault choices drawn by the workers of
// pods no action of c names any more; ok is false if there are none.
func (c Case) WithoutGonePodsFaults() (Case, bool) {
	if len(c.faultBy) != len(c.Faults) {
		return c, false
	}
	named := map[string]bool{}
	for _, a := range c.Plan.Actions {
		named[string(a.UID)] = true
	}
	out := c.Clone()
	out.Faults, out.faultBy = out.Faults[:0], out.faultBy[:0]
	for i, by := range c.faultBy {
		uid, isWorker := strings.CutPrefix(by, "worker/")
		uid, _, _ = strings.Cut(uid, "#")
		if isWorker && !named[uid] {
			continue
		}
		out.Faults, out.faultBy = append(out.Faults, c.Faults[i]), append(out.faultBy, by)
	}
	return out, len(out.Faults) < len(c.Faults)
}
