package realkubelet

import (
	"cmp"
	"context"
	"slices"
	"testing/synctest"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/kubernetes/pkg/kubelet"

	"github.com/podsim/podsim/oracle"
	"github.com/podsim/podsim/oracle/coverage"
	"github.com/podsim/podsim/oracle/linearize"
	"github.com/podsim/podsim/oracle/nearmiss"
	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/realkubelet/actors"
	"github.com/podsim/podsim/realkubelet/components"
	"github.com/podsim/podsim/realkubelet/explain"
	"github.com/podsim/podsim/realkubelet/k5class"
	"github.com/podsim/podsim/realkubelet/killwait"
	"github.com/podsim/podsim/realkubelet/podworkers"
	"github.com/podsim/podsim/realkubelet/script"
	"github.com/podsim/podsim/realkubelet/status"
	"github.com/podsim/podsim/realkubelet/syncgate"
	"github.com/podsim/podsim/realkubelet/tape"
)

// StepDuration is the fake time every driver step takes: it orders the
// workers' timestamps and runs killPodNow's timeouts (≥10 s = 100 steps).
const StepDuration = 100 * time.Millisecond

// Driver runs moves against the real pod workers inside a synctest bubble
// (it must be created and used inside synctest.Test). After each move it
// waits until every goroutine is parked, then records what the step
// caused and runs the direct checks.
type Driver struct {
	pw    kubelet.PodWorkers
	gates *syncgate.Gates
	ctx   context.Context
	h     *tape.Tape

	pods        map[types.UID]*configPod
	completions []*completion
	// logind are the logind faults the mode moves turned on, for every
	// shutdown manager of the run (the actors of each process).
	logind actors.LogindFaults
	// graceful are the node's shutdown groups if it has graceful node
	// shutdown (gracefulIn), nil if not; started: the first process
	// started (startKubelet).
	graceful []plan.ShutdownGroup
	started  bool
	// waits are the killPodNow waits, of every process (package killwait).
	waits *killwait.Waits
	// running is the fake runtime: UIDs whose containers may be running.
	running map[types.UID]bool
	// lastGrace is the grace of the latest SyncTerminatingPod per UID.
	lastGrace map[types.UID]int64
	evicted   map[types.UID]bool
	// lastUpdate is the step of the latest UpdatePod per UID.
	lastUpdate map[types.UID]int
	// restartPending: a create reached uid while it was terminating (the
	// update was dropped as a restart); lastFailed: uid's latest callback
	// did not succeed. Together they classify a stuck pod as GD.
	restartPending, lastFailed map[types.UID]bool
	// leftKnown are the pods the workers still knew when Teardown gave up
	// (teardownFinding).
	leftKnown []types.UID
	// ev is what the exact predicates of package explain need.
	ev explain.Evidence
	// naturalEnd: uid's SyncPod reported natural completion (isTerminal)
	// in this incarnation.
	naturalEnd map[types.UID]bool
	// lateNow is the UID whose earlier worker read a signal in this step.
	lateNow types.UID
	// leastOffered is the smallest grace offered to the incarnation.
	leastOffered map[types.UID]int64
	// zeroDeletionOffered: some update of the run offered a kill override
	// with DeletionGracePeriodSeconds=0 (linjudge.Judge's GA evidence).
	zeroDeletionOffered bool
	// universe is every UID any move named, sorted on use.
	universe map[types.UID]bool
	// lastMoved is the latest step whose move named the UID (stuck.go).
	lastMoved map[types.UID]int

	checks checker
	opts   RunOptions
	// actors are the real kubelet managers around the workers (package
	// actors).
	actors *actors.Actors
	// planted: opts.plant has fired (it fires once).
	planted bool
	// lin is the shared linearizability oracle, fed every event by h.
	lin oracle.Oracle
	// cov is the run's state coverage (coverage.go), fed every event by h.
	cov *coverage.Tracker
	// synced: a recorded SyncKnownPods returned (upstream's podsSynced).
	synced bool
	// Moves are the moves applied so far (the run's script); Step counts
	// them.
	Moves []script.Move
	Step  int
	// stepStart[s] is the first event seq of step s (index 0 unused).
	stepStart []int64
	// planSteps is how many of Moves were the plan phase's.
	planSteps int
	// atRest, if set, is called after every step once the workers are at
	// rest and the step's fires and killPodNow returns are recorded, before
	// the callbacks that began are (sharedsafety_test.go closes the
	// critical sections it reconstructs there).
	atRest func()
	// st is the status component (status.go); nil when it is off.
	st *status.Component
	// processStarts are the seqs at which each kubelet process's history
	// begins (restart.go); deadCompletions counts the completions of
	// processes that ended; restartsSkipped counts Restarts not modelled
	// (restart.go).
	processStarts []int64
	// pastGhosts are, per kubelet process that ended (by its index in
	// processStarts), the steps at which a worker goroutine of an earlier
	// incarnation adopted a UID's record in it (explain.Evidence.GhostFrom,
	// which a restart resets): GE's cut applies to that process's history.
	pastGhosts map[int]map[types.UID]int
	// k5 is the evidence that names a K5 finding GH or GI.
	k5              k5class.Evidence
	deadCompletions int
	restartsSkipped int
	// restartHeld: a Restart waits for the node shutdown's processing
	// to end (restart.go).
	restartHeld bool
	// records are the UIDs the current pod workers hold a record of
	// (runtimekill.go).
	records map[types.UID]bool
	// cache is the runtime cache the current pod workers read (podworkers).
	cache podworkers.Cache
	// created counts the pods created (configPod.created).
	created int
}

// completion is a kill's CompletedCh, by completion ID.
type completion struct {
	id    int
	uid   types.UID
	ch    chan struct{}
	fired bool
	step  int // when the kill was sent
	// finishedBefore: the pod was known and finished when the kill came.
	finishedBefore bool
	reported       bool // S14 reported
	// terminatedAfter, runtimeAfter: a SyncTerminatingPod, a
	// SyncTerminatingRuntimePod of the record the kill joined succeeded
	// after the kill.
	terminatedAfter, runtimeAfter bool
	// recordOver: that record ended (finished, purged, or forgotten by
	// completeTerminatingRuntimePod); a later record's calls close only
	// the channels of the kills that joined it (completeTerminating).
	recordOver bool
}

// NewDriver builds the real pod workers and an empty world around them.
func NewDriver() *Driver { return newDriver(RunOptions{}) }

// newDriver is NewDriver with the run's options (ForcePorcupine: the
// linearizability oracle is made with the driver).
func newDriver(o RunOptions) *Driver {
	g := syncgate.New()
	d := &Driver{gates: g, ctx: quietContext(), pods: map[types.UID]*configPod{},
		running: map[types.UID]bool{}, lastGrace: map[types.UID]int64{}, evicted: map[types.UID]bool{},
		lastUpdate: map[types.UID]int{}, leastOffered: map[types.UID]int64{},
		restartPending: map[types.UID]bool{}, lastFailed: map[types.UID]bool{}, ev: explain.NewEvidence(),
		naturalEnd: map[types.UID]bool{},
		universe:   map[types.UID]bool{}, lastMoved: map[types.UID]int{}, records: map[types.UID]bool{}}
	d.k5.Reset()
	d.opts = o
	d.pw = podworkers.New(g, d.cache, g.Enqueue)
	d.actors = newActors(d)
	// A pass-through hook (the worker reads its own channel, as without
	// it) that tells teardown which workers were never stopped (stuck.go).
	// A tree whose podWorkers lost the hook only loses that naming.
	_ = podworkers.SetWorkerChannelFn(d.pw, g.PassThrough)
	linOpts := linearize.Options{PorcupineTimeout: PorcupineTimeout, ForcePorcupine: o.ForcePorcupine}
	d.lin = tape.NewPerProcess(func() oracle.Oracle { return linearize.New(linOpts) })
	d.processStarts = []int64{1}
	d.h = tape.New(time.Now, d.View(), d.lin)
	d.waits = killwait.New(d.h, func(msg string) { d.report("direct", "R2", "", msg) })
	if !o.noCoverage {
		d.cov = coverage.New()
		d.h.Oracles = append(d.h.Oracles, coverageObserver{d.cov})
		if o.NearMisses {
			d.h.Oracles = append(d.h.Oracles, nearMissObserver{nearmiss.New(d.cov)})
		}
	}
	if o.Real.On(components.Status) {
		d.st = status.New(statusHost{d}, status.Plants{Bug: o.plant, Planted: func() { d.planted = true }})
		d.h.Oracles = append(d.h.Oracles, committedOracle{d.st.Kube, d.Probe})
	}
	if d.actors.Check != nil {
		d.h.Oracles = append(d.h.Oracles, committedOracle{d.actors.Check, d.Probe})
	}
	d.stepStart = []int64{0}
	return d
}

// Apply performs one move and everything it causes; false if the move
// cannot happen now (a release with nothing parked for that UID), in which
// case nothing happened. Shrinking relies on that.
func (d *Driver) Apply(m script.Move) bool {
	switch m.Kind {
	case script.MoveRelease:
		if !d.parked(m.UID) {
			return false
		}
	case script.MoveTick:
		if d.gates.QueueLen() == 0 {
			return false
		}
	case script.MoveWake:
		if !slices.Contains(d.gates.Wakes(), m.UID) {
			return false
		}
	case script.MoveDeliver:
		if !slices.Contains(d.actors.PendingKills(), m.UID) {
			return false
		}
	case script.MoveStatusSync, script.MoveStatusResync, script.MoveEcho:
		if !d.statusMovePossible(m.Kind) {
			return false
		}
	case script.MoveHoldWakes:
		if !d.onlyModeMoves(m.Kind) {
			return false // workers may exist already: the hook must come first, once
		}
		d.holdWakes()
	case script.MoveLogindRestart, script.MoveLogindDelay:
		if !d.onlyModeMoves(m.Kind) {
			return false // a manager may have started already
		}
		d.logindMode(m)
	}
	if !d.started && !slices.Contains(modeMoves, m.Kind) {
		d.startKubelet()
	}
	time.Sleep(StepDuration)
	// The step's instant may be a timer's (the eviction manager's cleanup
	// poll ticks every second, killPodNow's timeout): the goroutines it
	// woke run to rest before the move, not racing it (the driver and they
	// wake at the same instant, in any order; the order once reached the
	// move through the eviction manager's Busy, swarm-restart seed 27).
	d.waitQuiet()
	d.Step++
	d.Moves = append(d.Moves, m)
	if uid := cmp.Or(m.UID, m.Action.UID); uid != "" {
		d.lastMoved[uid] = d.Step
	}
	d.stepStart = append(d.stepStart, d.h.Seq+1)
	switch m.Kind {
	case script.MoveAction:
		if m.Action.Kind == plan.Shutdown && d.opts.Real.On(components.Shutdown) {
			d.actors.StartShutdown(m.Groups)
		} else if m.Action.Kind == plan.ShutdownCancel && d.opts.Real.On(components.Shutdown) {
			d.actors.CancelShutdown()
		} else {
			d.action(m.Action)
		}
	case script.MoveDeliver:
		d.deliver(m.UID)
	case script.MoveRelease:
		d.releaseCall(m.UID, m.Outcome)
	case script.MoveTick:
		d.tick()
	case script.MoveWake:
		d.wake(m.UID)
	case script.MoveStatusSync, script.MoveStatusResync, script.MoveEcho:
		d.statusMove(m)
	}
	d.afterStep()
	d.lateNow = ""
	return true
}

// afterStep lets the workers run to their gates, then records what the
// step fired (completions, cancellations), closes killPodNow waits that
// ended, records callbacks that began, and runs the direct checks.
func (d *Driver) afterStep() {
	d.waitQuiet()
	d.coverageAtRest()
	d.pollFires()
	d.waits.Poll()
	d.actors.Poll()
	if d.atRest != nil {
		d.atRest()
	}
	for _, c := range d.gates.Parked() {
		if !c.Begun {
			c.Begun = true
			d.began(c)
		}
	}
	d.checkStep()
	d.heldRestart()
}

// waitQuiet returns once every goroutine of the bubble is parked or idle.
func (d *Driver) waitQuiet() { synctest.Wait() }
