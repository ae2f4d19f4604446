package realkubelet

import (
	"cmp"
	"fmt"
	"maps"
	"slices"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/model/deviation"
	"github.com/podsim/podsim/model/ops"
	"github.com/podsim/podsim/oracle/coverage"
	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/realdriver"
	"github.com/podsim/podsim/realkubelet/components"
	"github.com/podsim/podsim/realkubelet/explain"
	"github.com/podsim/podsim/realkubelet/finding"
	"github.com/podsim/podsim/realkubelet/planted"
	"github.com/podsim/podsim/realkubelet/script"
	"github.com/podsim/podsim/realkubelet/syncgate"
	"github.com/podsim/podsim/sim"
	"k8s.io/apimachinery/pkg/types"
)

// Result is one run on the real pod workers.
type Result struct {
	Family   string
	Seed     uint64
	Moves    []script.Move // the plan-phase moves: the run's replayable script
	Findings []finding.Finding
	Ops      int    // operations in the recorded history
	TraceSHA string // SHA-256 of the canonical trace
	// Deviations are the model deviations the history was judged with when
	// the specification alone rejected it (package explain); 0 otherwise.
	Deviations deviation.Set
	Trace      []string
	// Coverage is the state coverage the run reached, plan and settle
	// phases (package oracle/coverage; coverage.go says what the real
	// kubelet shows of each tuple field).
	Coverage coverage.Coverage
}

// Failed reports whether any check failed.
func (r Result) Failed() bool { return len(r.Findings) > 0 }

// Unexplained are the findings that are neither a known upstream deviation
// nor a documented model difference.
func (r Result) Unexplained() []finding.Finding { return realdriver.Unexplained(r.Findings, classOf) }

// Classes lists the distinct classes of the findings, in order of first
// appearance ("" for unexplained ones).
func (r Result) Classes() []string { return realdriver.Classes(r.Findings, classOf) }

func classOf(f finding.Finding) string { return f.Class }

// Generate drives a family's plan with the seed's schedule and fault
// streams: before every step it picks, from the schedule stream, the next
// plan action, the release of a parked callback (its outcome from the
// fault stream and the plan's fault rates), a work-queue tick or
// housekeeping. The node has graceful shutdown if the plan shuts it down
// (gracefulIn). It must run inside a synctest bubble.
func (d *Driver) Generate(p plan.Plan, schedule, faults sim.Source, holdWakes bool) {
	d.graceful = gracefulOf(p)
	if holdWakes {
		d.Apply(script.Move{Kind: script.MoveHoldWakes})
	}
	if d.opts.LogindRestart {
		fail := script.LogindFails[faults.Intn(len(script.LogindFails))]
		d.Apply(script.Move{Kind: script.MoveLogindRestart, Fault: fail})
	}
	if d.opts.LogindDelay {
		apply := script.LogindApplies[faults.Intn(len(script.LogindApplies))]
		d.Apply(script.Move{Kind: script.MoveLogindDelay, Fault: apply})
	}
	next := 0
	for {
		parked, wakes, kills := d.gates.Parked(), d.gates.Wakes(), d.actors.PendingKills()
		gated := len(parked) + len(wakes) + len(kills)
		if next == len(p.Actions) && gated == 0 {
			return
		}
		r := schedule.Intn(16)
		sm, status := d.statusChoice(r, schedule)
		// While the node shutdown manager has a cancellation to read, or a
		// restart waits for the shutdown's processing to end, the plan
		// waits for it more often than not: its next action comes at r 0
		// only (shutdown-cancel's creates land after the read in most
		// runs, before it in some, as the world's plan times have it;
		// shutdown-restart's after the restart).
		planAt := 7
		if d.actors.CancelPending() || d.restartHeld {
			planAt = 1
		}
		switch {
		case status:
			d.Apply(sm)
		case next < len(p.Actions) && (gated == 0 || r < planAt):
			d.Apply(script.PlanMove(p, next))
			next++
		case r == 7 && d.gates.QueueLen() > 0:
			d.Apply(script.Move{Kind: script.MoveTick})
		case r == 8:
			d.Apply(script.Move{Kind: script.MoveAction, Action: plan.Action{Kind: plan.SyncKnown, Grace: -1}})
		case gated > 0:
			switch i := schedule.Intn(gated); {
			case i < len(parked):
				c := parked[i]
				d.Apply(script.Move{Kind: script.MoveRelease, UID: c.UID, Outcome: chooseOutcome(c, p.Faults, faults)})
			case i < len(parked)+len(wakes):
				d.Apply(script.Move{Kind: script.MoveWake, UID: wakes[i-len(parked)]})
			default:
				d.Apply(script.Move{Kind: script.MoveDeliver, UID: kills[i-len(parked)-len(wakes)]})
			}
		}
		if d.Step > 400 {
			d.report("liveness", "L3", "", "the plan phase did not end within 400 steps")
			return
		}
	}
}

// chooseOutcome draws a released callback's outcome: a cancelled context
// is honoured unless the call ignores cancellation (IgnoreCancel, B16);
// then an injected error (ErrorRate); then natural completion for SyncPod
// (TerminalRate); else success. Rates are per mille.
func chooseOutcome(c *syncgate.Call, f plan.Faults, src sim.Source) syncgate.Outcome {
	if c.Ctx.Err() != nil && src.Intn(1000) >= f.IgnoreCancel {
		return syncgate.ReturnCanceled
	}
	if src.Intn(1000) < f.ErrorRate {
		return syncgate.ReturnError
	}
	if c.Fn == ops.SyncPod && src.Intn(1000) < f.TerminalRate {
		return syncgate.ReturnTerminal
	}
	return syncgate.ReturnOK
}

// settleRounds bounds the settle phase: each round is housekeeping, a
// work-queue tick and the release of every parked callback with success.
const settleRounds = 8

// Settle is the liveness phase (SPEC §3.2 assumes syncs eventually succeed
// and housekeeping runs): rounds of housekeeping, a tick and successful
// releases, then time enough for every killPodNow wait to end; then the
// liveness checks.
func (d *Driver) Settle() {
	d.settleRounds()
	d.settleActors()
	if d.restartHeld {
		// The plan's restart waits for a node shutdown's processing and
		// kills, which end only as time passes here: it happens then, and
		// the new process settles in turn.
		d.settleUntil(func() bool { return !d.actorsBusy() })
		d.heldRestart()
		d.settleRounds()
		d.settleActors()
	}
	d.waits.RunOut(200)
	d.checkSettled()
}

// settleRounds are the settle phase's rounds of housekeeping, a tick and
// successful releases.
func (d *Driver) settleRounds() {
	for range settleRounds {
		d.Apply(script.Move{Kind: script.MoveAction, Action: plan.Action{Kind: plan.SyncKnown, Grace: -1}})
		d.Apply(script.Move{Kind: script.MoveTick})
		for i := 0; i < 100; i++ {
			if wakes := d.gates.Wakes(); len(wakes) > 0 {
				d.Apply(script.Move{Kind: script.MoveWake, UID: wakes[0]})
				continue
			}
			parked := d.gates.Parked()
			if len(parked) == 0 {
				break
			}
			d.Apply(script.Move{Kind: script.MoveRelease, UID: parked[0].UID, Outcome: syncgate.ReturnOK})
		}
		d.settleStatus()
	}
}

// checkSettled is liveness after the settle phase: L1 (termination
// requested ⇒ terminated), L2 (terminated ⇒ finished), L6 (every kill's
// completion fired; every killPodNow saw it), and L3: nothing left parked,
// and no manager still at work after settleActors waited its bound (a node
// shutdown's processing ends within its groups' graces; before this check
// one that never ended, e.g. its event lost, passed unseen).
func (d *Driver) checkSettled() {
	for _, c := range d.gates.Parked() {
		d.report("liveness", "L3", "", fmt.Sprintf("pod %s: %s still in flight after settling", c.UID, c.Fn))
	}
	if why := d.actors.Unfinished(); why != "" {
		d.report("liveness", "L3", "", "the kubelet's managers were still at work after settling: "+why)
	}
	d.checkActors()
	if d.st != nil {
		for _, msg := range d.st.Unwritten() {
			d.report("conform", "P5", "", msg)
		}
	}
	for _, uid := range d.sortedUniverse() {
		a := d.answersOf(uid)
		if a == explain.UnknownAfterSync {
			continue
		}
		if a[explain.TermRequested] && !a[explain.KnownTerminated] {
			d.report("liveness", "L1", d.stuckClass(uid), fmt.Sprintf("pod %s: termination requested but never terminated (%s)", uid, a))
		}
		if a[explain.KnownTerminated] && !a[explain.BeFinished] {
			class := cmp.Or(d.stuckClass(uid), d.ev.NeverFinished(uid))
			d.report("liveness", "L2", class, fmt.Sprintf("pod %s: terminated but never finished (%s)", uid, a))
		}
	}
	for _, c := range d.completions {
		if !c.fired {
			d.report("liveness", "L6", d.completionClass(c), fmt.Sprintf("pod %s: completion %d (kill at step %d) never fired", c.uid, c.id, c.step))
		}
	}
	for _, w := range d.waits.Live() {
		if c := d.completionOf(w.ID); !c.fired {
			d.report("liveness", "L6", d.completionClass(c), fmt.Sprintf("pod %s: killPodNow (completion %d) timed out", c.uid, c.id))
		}
	}
}

// stuckClass is explain's Stuck for uid, from the driver's records.
func (d *Driver) stuckClass(uid types.UID) string {
	p := d.pods[uid]
	return d.ev.Stuck(uid, p != nil && p.inConfig, d.restartPending[uid], d.lastFailed[uid])
}

// completionClass attributes a completion that never fired to the direct
// S14 finding made about it, if any; else explain.NeverFired judges it.
func (d *Driver) completionClass(c *completion) string {
	prefix := fmt.Sprintf("pod %s: completion %d still open", c.uid, c.id)
	for _, f := range d.checks.findings {
		if f.Invariant == "S14" && len(f.Message) >= len(prefix) && f.Message[:len(prefix)] == prefix {
			return f.Class
		}
	}
	return explain.NeverFired(c.terminatedAfter, c.runtimeAfter, c.recordOver, d.stuckClass(c.uid))
}

// Teardown drives every pod to the end so the bubble can close (synctest
// requires every goroutine to exit): nothing is recorded any more; rounds
// of SyncKnownPods(nothing desired) and successful releases until the
// workers know no pod. It reports whether that happened.
func (d *Driver) Teardown() bool {
	d.h.On = false
	d.teardownActors()
	for _, p := range d.pods {
		p.inConfig = false
	}
	for range 100 {
		known := d.pw.SyncKnownPods(quietLogger(), nil)
		d.drainParked()
		if len(known) == 0 && len(d.gates.Parked())+len(d.gates.Wakes()) == 0 {
			d.waits.Stop()
			return true
		}
		d.leftKnown = slices.Sorted(maps.Keys(known))
	}
	d.waits.Stop()
	return false
}

// teardownFinding is the L2 of a Teardown that failed: the pods the
// workers still knew, GE's if each is a record GE left terminated but
// never finished (explain.NeverFinished).
func (d *Driver) teardownFinding() finding.Finding {
	class := ""
	if len(d.leftKnown) > 0 && !slices.ContainsFunc(d.leftKnown, func(uid types.UID) bool { return d.ev.NeverFinished(uid) == "" }) {
		class = "GE"
	}
	return finding.Finding{Class: class, Violation: history.Violation{Oracle: "liveness", Invariant: "L2",
		Message: fmt.Sprintf("%sthe workers still know pods %v after 100 rounds of SyncKnownPods(nil)", teardownPrefix, d.leftKnown)}}
}

func (d *Driver) drainParked() {
	for {
		d.waitQuiet()
		parked, wakes := d.gates.Parked(), d.gates.Wakes()
		if len(parked)+len(wakes) == 0 {
			return
		}
		for _, uid := range wakes {
			d.gates.ReleaseWake(uid)
		}
		for _, c := range parked {
			d.gates.Release(c.UID, syncgate.ReturnOK)
		}
	}
}

// Finish ends a run: settle, check the history, tear down.
func (d *Driver) Finish(family string, seed uint64) Result {
	d.Settle()
	r := Result{Family: family, Seed: seed, Moves: d.planMoves(), TraceSHA: d.h.SHA(), Trace: d.h.Trace, Coverage: d.coverage()}
	catalogue := d.opts.catalogue
	if catalogue == nil {
		catalogue = finding.KnownDeviations
	}
	dev := finding.Apply(d.checks.findings, catalogue)
	lin := d.judgeHistory(dev, catalogue)
	r.Ops, r.Deviations = lin.Ops, lin.Dev
	r.Findings = append(d.checks.findings, lin.Findings...)
	r.Findings = append(r.Findings, d.kubeletFindings()...)
	status := d.statusFindings()
	finding.Apply(status, catalogue)
	r.Findings = append(r.Findings, status...)
	if !d.Teardown() {
		r.Findings = append(r.Findings, d.teardownFinding())
	}
	r.Findings = append(r.Findings, d.stuckWorkers()...)
	return r
}

// planMoves are the moves before the settle phase.
func (d *Driver) planMoves() []script.Move { return d.Moves[:d.planSteps] }

// RunPlan runs a family plan with a seed's streams; inside a bubble.
func RunPlan(family string, seed uint64, p plan.Plan, st plan.Streams, o RunOptions) Result {
	d := newDriver(o)
	d.Generate(p, st.Schedule, st.Faults, o.HoldWakes)
	d.planSteps = len(d.Moves)
	return d.Finish(family, seed)
}

// RunMoves replays a script; inside a bubble. Moves that cannot happen in
// the state reached (a release with nothing parked) are skipped.
func RunMoves(moves []script.Move) Result { return RunMovesWith(moves, RunOptions{}) }

// RunMovesWith is RunMoves with options (the components; HoldWakes is a
// move of the script); the node has graceful shutdown if the script shuts
// it down (gracefulIn); inside a bubble.
func RunMovesWith(moves []script.Move, o RunOptions) Result {
	d := newDriver(o)
	d.graceful = gracefulIn(moves)
	for _, m := range moves {
		d.Apply(m)
	}
	d.planSteps = len(d.Moves)
	return d.Finish("script", 0)
}

// RunSeed runs one seed of a family; inside a bubble.
func RunSeed(f plan.Family, seed uint64) Result { return RunSeedWith(f, seed, RunOptions{}) }

// RunOptions are a run's knobs beyond family and seed.
type RunOptions struct {
	// ForcePorcupine runs porcupine (model/check.Check) on every history, not
	// only when the witness replay fails.
	ForcePorcupine bool
	// HoldWakes holds every worker wake-up at a gate (wakes.go), so the
	// seed also decides when each worker takes its pending update.
	HoldWakes bool
	// Real selects the real kubelet components around the pod workers
	// (package components); the zero value runs every one that exists.
	Real components.Set
	// catalogue are the deviation classes explanations may use; nil means
	// finding.KnownDeviations (tests drop one, explain_test.go).
	catalogue []string
	// plant is a bug planted in the driver or its components (tests only,
	// package planted).
	plant planted.Bug
	// restartLearns (tests only): a kubelet restarted during a node
	// shutdown is told of it at its start, as one that asks logind would
	// be (actors.InheritShutdown): the fixed kubelet's behaviour, on the pin.
	restartLearns bool
	// noCoverage runs without the coverage tracker (tests only: it must
	// change nothing but Result.Coverage).
	noCoverage bool
	// NearMisses records the oracles' near misses (package
	// oracle/nearmiss) in Result.Coverage.Near, as the simulated world's
	// run.CheckOptions.NearMisses does: the guided loop's corpus keeps
	// their owners. Nothing else of the run changes.
	NearMisses bool
	// LogindRestart restarts logind under the node shutdown manager before
	// each shutdown event, the manager running its own Start and reconnect
	// loop (shutdown.Config.Restart; a kubelet from v1.37:
	// shutdown.RestartSupported), and judges its connections (P7): Generate
	// makes logind-restart a run's first move (after hold-wakes), and the
	// move is what turns it on, so a script carries it (RunMovesWith does
	// not read this field).
	LogindRestart bool
	// LogindDelay starts logind's inhibit delay short of the node shutdown
	// manager's groups, so that its start overrides it and polls until
	// logind applies the override (at its reload, or a second later: drawn
	// from the fault stream into the logind-delay move), and judges the
	// delay in force when it starts watching (P7; any kubelet).
	LogindDelay bool
}

// RunSeedWith is RunSeed with options; inside a bubble.
func RunSeedWith(f plan.Family, seed uint64, o RunOptions) Result {
	st := plan.SeedStreams(seed)
	return RunPlan(f.Name, seed, f.Generate(st.Plan), st, o)
}
