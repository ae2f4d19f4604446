package run

import (
	"fmt"
	"strings"
	"time"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/oracle"
	"github.com/podsim/podsim/oracle/coverage"
	"github.com/podsim/podsim/oracle/kubelet"
	"github.com/podsim/podsim/oracle/latency"
	"github.com/podsim/podsim/oracle/liveness"
	"github.com/podsim/podsim/oracle/nearmiss"
	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/sim"
	"github.com/podsim/podsim/vkworld"
	"github.com/podsim/podsim/world"
)

// Result is the outcome of one seed.
type Result struct {
	Family string
	Mutant string // the re-introduced bug (CheckOptions.Mutant), "" for the correct code
	// ObservableOnly: the workers' internal invariants were off
	// (CheckOptions.ObservableOnly).
	ObservableOnly bool
	Seed           uint64
	Err            error               // the scheduler's: deadlock, limit, panic, hot loop
	Violations     []history.Violation // the oracles'
	Steps          int64
	Elapsed        time.Duration
	TraceSHA       string   // the canonical trace's SHA-256; "" for a passing seed of a Lean run (CheckOptions.Lean)
	Marks          []string // coverage marks reached, sorted
	// Coverage is the abstract states and transitions the run passed
	// through (package oracle/coverage; oracle/vkcoverage for a VK plan);
	// empty for a Lean run without near misses (CheckOptions.Lean).
	Coverage coverage.Coverage
	// Input, for a run not made from a seed (the guided strategy's), is
	// the token of its choice streams that replays it (guided.ParseToken);
	// "" for a seed's run.
	Input string
	// FaultPointsArmed: the run armed the fault points
	// (CheckOptions.FaultPoints); FaultPoints are those it switched on, by
	// name.
	FaultPointsArmed bool
	FaultPoints      []string
	// Strategy, when a sweep mixes strategies (simrun's portfolio), is the
	// strategy that made this run as replay's --strategy argument; "" for
	// the sweep's own.
	Strategy string
}

// Failed reports whether the seed failed any check.
func (r Result) Failed() bool { return r.Err != nil || len(r.Violations) > 0 }

func (r Result) String() string {
	if !r.Failed() {
		return fmt.Sprintf("%s seed %d: ok (%d steps, %v)", r.Family, r.Seed, r.Steps, r.Elapsed)
	}
	msg := fmt.Sprint(r.Err)
	if r.Err == nil {
		msg = r.Violations[0].String()
	}
	return fmt.Sprintf("%s seed %d: FAIL %s", r.Family, r.Seed, msg)
}

// RunSeed runs one seed of a family with every oracle.
func RunSeed(f plan.Family, seed uint64, strategy sim.Strategy, opts CheckOptions) Result {
	r, s, _ := runSeed(f, seed, strategy, opts)
	s.Recycle() // its trace was hashed into r; the next seed reuses the buffer
	return r
}

// Replayed is one seed run again, with what a human needs to look at it.
type Replayed struct {
	Result
	Trace    string // the canonical trace
	Timeline []byte // Chrome trace-event JSON (Perfetto)
	Plan     plan.Plan
}

// ReplaySeed is RunSeed that also returns the trace, the timeline and the
// plan; its result has every output (opts.Lean is ignored).
func ReplaySeed(f plan.Family, seed uint64, strategy sim.Strategy, opts CheckOptions) Replayed {
	opts.Lean = false
	r, s, p := runSeed(f, seed, strategy, opts)
	return Replayed{Result: r, Trace: s.Trace(), Timeline: s.Timeline(), Plan: p}
}

// runSeed runs one seed on fresh structures (runSeedOn).
func runSeed(f plan.Family, seed uint64, strategy sim.Strategy, opts CheckOptions) (Result, *sim.Scheduler, plan.Plan) {
	return runSeedOn(nil, f, seed, strategy, opts)
}

// runSeedOn runs one seed on the target its plan is for, on lane l's
// reused structures (nil: fresh ones); it returns the result, the run's
// scheduler and the plan. A Lean run of the correct code records no
// trace; a failing one is run again, traced (untracedRun, rerunTraced).
func runSeedOn(l *Lane, f plan.Family, seed uint64, strategy sim.Strategy, opts CheckOptions) (Result, *sim.Scheduler, plan.Plan) {
	r, s, p := runSeedOnce(l, f, seed, strategy, opts, !untracedRun(opts))
	if s.Traced() || !r.Failed() {
		return r, s, p
	}
	return rerunTraced(l, f, strategy, opts, r, s)
}

// runSeedOnce is runSeedOn's one run, its scheduler traced or not.
func runSeedOnce(l *Lane, f plan.Family, seed uint64, strategy sim.Strategy, opts CheckOptions, traced bool) (Result, *sim.Scheduler, plan.Plan) {
	st := l.seedStreams(seed)
	p := f.Generate(st.Plan)
	if p.VK != nil {
		w := vkworld.NewWorld(p, st.Schedule, st.Faults, strategy)
		if !traced {
			w.S.Untraced()
		}
		return runVKWorld(f.Name, seed, w, opts, nil), w.S, p
	}
	w := l.newWorld(p, st, strategy)
	if !traced {
		w.S.Untraced()
	}
	if err := reintroduce(w, opts.Mutant); err != nil {
		return Result{Family: f.Name, Seed: seed, Err: err}, w.S, p
	}
	return judgeOn(l, f, seed, w, opts, nil), w.S, p
}

// judge runs the world with every oracle that applies to it, the coverage
// marker and the extra oracles (tests plant failures with them), and
// collects the verdict: the world's own invariants and the kubelet-level
// checks in the order found, then the per-epoch oracles, then the extras.
func judge(f plan.Family, seed uint64, w *world.World, opts CheckOptions, extra []oracle.Oracle) Result {
	return judgeOn(nil, f, seed, w, opts, extra)
}

// judgeOn is judge on lane l's reused structures (nil: fresh ones).
func judgeOn(l *Lane, f plan.Family, seed uint64, w *world.World, opts CheckOptions, extra []oracle.Oracle) Result {
	if opts.ObservableOnly {
		w.InternalInvariantsOff()
	}
	if opts.FaultPoints {
		w.FaultPointsOn()
	}
	view := w.View()
	fo := l.fanout()
	obs := &fo.obs
	*obs = observers{epochs: l.epochOracles(opts, w), marks: l.marker(), extra: extra}
	if view.Kubelet() != nil {
		obs.kube = l.reused(slotKubelet, kubelet.New)
	}
	cov, near := l.trackers(opts)
	if cov != nil {
		obs.cov = cov
	}
	if near != nil {
		obs.near = near
	}
	obs.timing = [...]oracle.Oracle{l.reused(slotRequeue, newRequeue), l.reused(slotKillNow, latency.NewKillNow),
		l.reused(slotFreshness, latency.NewFreshness), l.conformFor(w.Plan()), l.reused(slotWorkerLeaks, liveness.NewWorkerLeaks)}
	var known *history.KnownFromHistory
	if opts.ObservableOnly {
		// The world records no record list: Known comes from the history.
		known = history.NewKnownFromHistory()
	}
	fo.setFrom(obs)
	w.ObserveEvent(fo.handOut(handout{fo: fo, obs: obs, view: view, known: known, audited: opts.audit, slow: known != nil || opts.audit}))
	err := w.Run()
	marks := obs.marks
	marks.Merge(w.Marks())
	r := Result{Family: f.Name, Mutant: opts.Mutant, ObservableOnly: opts.ObservableOnly, Seed: seed, Err: err, Steps: w.S.Steps(), Elapsed: w.S.Elapsed(),
		Marks: marks.Sorted(), FaultPointsArmed: opts.FaultPoints}
	if cov != nil {
		r.Coverage = cov.Coverage()
	}
	for _, p := range w.FaultPointsDrawn() {
		r.FaultPoints = append(r.FaultPoints, p.String())
	}
	r.Violations = w.Violations
	if obs.kube != nil {
		r.Violations = inOrderFound(w.Violations, obs.kube.Finish(view, err))
	}
	r.Violations = append(r.Violations, obs.epochs.Finish(view, err)...)
	for _, o := range obs.timing {
		r.Violations = append(r.Violations, o.Finish(view, err)...)
	}
	for _, o := range extra {
		r.Violations = append(r.Violations, o.Finish(view, err)...)
	}
	hashTrace(&r, w.S, opts)
	return r
}

// trackers are the run's coverage tracker, nil when opts tracks no
// coverage (a Lean run reads no tuples), and its near-miss tracker, nil
// unless opts.NearMisses.
func (l *Lane) trackers(opts CheckOptions) (*coverage.Tracker, *nearmiss.Tracker) {
	switch {
	case !opts.tracksCoverage():
		return nil, nil
	case !opts.NearMisses:
		return l.coverage(), nil
	}
	cov := l.coverage()
	return cov, nearmiss.New(cov)
}

// hashTrace sets r.TraceSHA from s's trace, the run's, unless opts is Lean
// and r passed: a failing seed's hash is always printed.
func hashTrace(r *Result, s *sim.Scheduler, opts CheckOptions) {
	if (!opts.Lean || r.Failed()) && s.Traced() { // untraced: runSeedOn re-runs a failing seed
		r.TraceSHA = s.TraceSHA256()
	}
}

// inOrderFound merges the world's own violations with the kubelet-level
// checks', each list in the order found, into the order found: by the Seq
// of the event each was found after. On a tie the kubelet check's comes
// first: the world checks its invariants at a release of the pod lock, just
// before it emits LockReleasing, so nothing else is found later in that
// gap between two events.
func inOrderFound(world, kube []history.Violation) []history.Violation {
	out := make([]history.Violation, 0, len(world)+len(kube))
	for len(world) > 0 && len(kube) > 0 {
		if kube[0].Seq <= world[0].Seq {
			out, kube = append(out, kube[0]), kube[1:]
		} else {
			out, world = append(out, world[0]), world[1:]
		}
	}
	return append(append(out, world...), kube...)
}

// epochOracles gives each kubelet process of a run oracles of
// its own: at Restarted the current ones are set aside and fresh ones
// judge the new pod workers as a fresh history. A set-aside epoch is
// finished with oracle.ErrEpochEnded as its run error: its history stops where
// the process did (calls in flight are cut, as after a failed run), and
// nothing of it is judged as settled (a dead kubelet owes no liveness).
type epochOracles struct {
	make func() []oracle.Oracle
	cur  []oracle.Oracle
	past []pastEpoch
	// lastAt is the time of the current epoch's last event, Noted aside:
	// Observe's, or judgeOn's handout's, which hands the events to cur
	// itself and writes it here.
	lastAt time.Duration
}

// pastEpoch is an epoch a restart ended: its oracles, and the time of its
// last event, which they are finished with (oracle.EpochEnd).
type pastEpoch struct {
	oracles []oracle.Oracle
	end     time.Duration
}

func newEpochOracles(make func() []oracle.Oracle) *epochOracles {
	return &epochOracles{make: make, cur: make()}
}

// Observe implements Oracle, as judgeOn's fanout does: an event of a kind
// the epochs read (epochKinds) goes to the current epoch's oracles, and
// Restarted begins the next epoch.
func (e *epochOracles) Observe(v oracle.View, ev *history.Event) {
	if ev.Kind == history.Restarted {
		e.restart()
	}
	if epochKinds.Has(ev.Kind) {
		e.lastAt = ev.At
		for _, o := range e.cur {
			o.Observe(v, ev)
		}
	}
}

// restart sets the current epoch's oracles aside with the time of its
// last event (lastAt), and begins the next: at Restarted, which none of
// them reads (epochKinds).
func (e *epochOracles) restart() {
	e.past = append(e.past, pastEpoch{e.cur, e.lastAt})
	e.cur, e.lastAt = e.make(), 0
}

// Finish implements Oracle: every epoch's violations, oldest first.
func (e *epochOracles) Finish(v oracle.View, runErr error) []history.Violation {
	var out []history.Violation
	for _, p := range e.past {
		for _, o := range p.oracles {
			out = append(out, o.Finish(v, oracle.EpochEnd{At: p.end})...)
		}
	}
	for _, o := range e.cur {
		out = append(out, o.Finish(v, runErr)...)
	}
	return out
}

// storyOf tells a failed run as its plan and its violations.
func storyOf(p plan.Plan, r Result) string {
	var b strings.Builder
	b.WriteString(p.String())
	for _, v := range r.Violations {
		fmt.Fprintf(&b, "\n  violation: %s", v)
	}
	return b.String()
}
