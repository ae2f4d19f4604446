package run

import (
	"time"

	"github.com/podsim/podsim/oracle"
	"github.com/podsim/podsim/oracle/latency"
	"github.com/podsim/podsim/oracle/linearize"
	"github.com/podsim/podsim/oracle/liveness"
	"github.com/podsim/podsim/oracle/safety"
	"github.com/podsim/podsim/world"
)

// CheckOptions tune the oracles of a run.
type CheckOptions struct {
	// ForcePorcupine runs porcupine's search on every history instead of
	// only when the witness replay fails.
	ForcePorcupine bool
	// PorcupineTimeout bounds porcupine's search; a timeout is reported as
	// "unknown", never as a pass. 0 means linearize.DefaultPorcupineTimeout; a
	// negative value means no bound.
	PorcupineTimeout time.Duration
	// ArtifactDir, if set, is where an oracle that finds a violation writes
	// what a human needs to see it (the linearizability oracle: porcupine's
	// HTML, the canonical trace, the witness order and a one-line verdict).
	// Files are named after the oracle (trace.txt, the scheduler's trace, is
	// the same whoever writes it) and hold no timestamps, so a replay writes
	// the same bytes. Empty: nothing is written.
	ArtifactDir string
	// Reproduce is the command that replays this run (e.g. simrun's
	// "go run ./cmd/simrun replay --scenario swarm --seed 17 --strategy
	// random"), for the verdict line; the oracles cannot know the seed.
	Reproduce string
	// Mutant names a catalogued bug (docs/bugs.md id, e.g. "B2") to re-introduce
	// for this run; "" runs the correct code. See Mutants().
	Mutant string
	// ObservableOnly switches the pod workers' internal invariants off
	// (world.InternalInvariantsOff): the record invariants checked at every
	// pod-lock release and the workers' in-line assertions, which read
	// private state, never decide the verdict; only the oracles, judging
	// what a caller observes, do. The world then records no record list
	// with its query answers: Known comes from the history alone
	// (history.KnownFromHistory). The liveness oracle judges the end of a
	// run from the history in both modes (docs/design.md). The zero value
	// keeps them on.
	ObservableOnly bool
	// FaultPoints arms the world's situation fault points (fakeruntime.FaultPoint,
	// docs/guided.md): the run's fault stream first draws which are on.
	// Off, the fault stream is drawn exactly as without them. The
	// virtual-kubelet world has its own (vkworld.FaultPoint).
	FaultPoints bool
	// NearMisses records the oracles' near misses (package oracle/nearmiss)
	// in the result's Coverage.Near. Only the guided loop's corpus reads
	// them, so only its runs pay for the tracker; off, Coverage.Near is
	// empty and nothing else of the run changes.
	NearMisses bool
	// Lean leaves out of a passing seed's result what a plain sweep's
	// table never reads: its trace hash (Result.TraceSHA is "") and its
	// coverage tuples and transitions (Result.Coverage is empty, unless
	// NearMisses needs the tracker: then it runs as without Lean). A
	// failing seed still gets its hash: reports print it. The verdict,
	// violations, steps, virtual time, marks and fault points are the same
	// either way. The zero value computes everything, so a caller that
	// compares hashes (a determinism check, a pin, the mutation sweep) can
	// never compare two empty ones by mistake; simrun asks for Lean only
	// where no output shows them (run without --json, gate). ReplaySeed
	// and ReplayCase ignore it: they return the whole trace anyway.
	Lean bool
	// audit checks the oracles' side of the Observe contract
	// (oracle.Oracle: an oracle neither writes the event it is handed nor
	// keeps its pointer) on every event of the run: a write stops the run
	// with the contract named, and each event is overwritten once every
	// oracle has read it, so a kept pointer reads another event. Tests
	// only (TestOraclesKeepTheObserveContract); it changes nothing else.
	audit bool
	// untraceMutant runs a Lean run of a mutant untraced, as one of the
	// correct code (untracedRun), so that tests can make its seeds fail
	// and be run again. Tests only; it changes no result.
	untraceMutant bool
}

// tracksCoverage reports whether a run under opts runs the coverage
// tracker: unless it is Lean, or when its near misses need it.
func (opts CheckOptions) tracksCoverage() bool { return !opts.Lean || opts.NearMisses }

// defaultOracles are the oracles every kubelet process of a run gets: the
// linearizability check, the step invariants, liveness and the kill-latency
// bound.
func defaultOracles(opts CheckOptions, w *world.World) []oracle.Oracle {
	return []oracle.Oracle{linearize.New(linearizeOptions(opts, w)), safety.New(),
		liveness.New(livenessPeriods), latency.New()}
}

// linearizeOptions are the linearizability oracle's options for a run of w.
// The trace is read only for the artifacts: without an ArtifactDir it is
// not set (the method value is an allocation a seed).
func linearizeOptions(opts CheckOptions, w *world.World) linearize.Options {
	o := linearize.Options{ForcePorcupine: opts.ForcePorcupine, PorcupineTimeout: opts.PorcupineTimeout,
		ArtifactDir: opts.ArtifactDir, Reproduce: opts.Reproduce}
	if opts.ArtifactDir != "" {
		o.Trace = w.S.Trace
	}
	return o
}

// requeuePeriods are the simulated kubelet's pod-worker periods, for the
// requeue-delay check (R1). R1 and the killPodNow-timeout check (R2) are one
// per run: R1 reads notes, which the per-epoch oracles do not see, and both
// start afresh at a kubelet restart themselves.
var requeuePeriods = latency.Periods{Resync: world.ResyncInterval, Backoff: world.BackoffPeriod,
	Transient: world.TransientBackoff}

// newRequeue is the requeue-delay check of the simulated kubelet.
func newRequeue() oracle.Oracle { return latency.NewRequeue(requeuePeriods) }

// livenessPeriods are the simulated kubelet's periods as the liveness
// oracle assumes them. An accepted update, kill or not, is taken within
// RetryWithin of its pod going idle (L9): at once when it brings new work
// (SPEC §1.8 step 5 re-runs a pending update), else by the next retry of
// a failed call (jittered backoff, the sync loop's tick, a housekeeping
// period); the longest waits measured over 300 seeds of every family
// under both strategies were 14 s (update) and 13 s (kill), both retries.
var livenessPeriods = liveness.Periods{RetryWithin: world.RetryWithin, Resync: world.ResyncInterval, Housekeeping: world.HousekeepingPeriod,
	TakeKill: world.RetryWithin, TakeUpdate: world.RetryWithin}

// SweepGCPercent is the garbage collector's target a sweep runs with unless
// GOGC says otherwise: simrun sets it (cmd/simrun, tuneGC), and so does
// BenchmarkScenario, so that the benchmark's seeds per CPU-second are
// simrun's. A sweep keeps little alive and allocates fast; at Go's default
// of 100 the collector takes about a quarter of its CPU
// (docs/performance.md). Runs are deterministic at any GOGC.
const SweepGCPercent = 400
