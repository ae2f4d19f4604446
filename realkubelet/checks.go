package realkubelet

import (
	"cmp"
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/kubernetes/pkg/kubelet"
	kubetypes "k8s.io/kubernetes/pkg/kubelet/types"

	"github.com/podsim/podsim/model/ops"
	"github.com/podsim/podsim/realkubelet/explain"
	"github.com/podsim/podsim/realkubelet/script"
	"github.com/podsim/podsim/realkubelet/syncgate"
)

// Why these checks are direct, not the shared step-invariant oracle.
//
// The shared oracles judge this target where they can: the driver emits
// history.Events and is an oracle.View (view.go), and the linearizability
// oracle (oracle/linearize) judges every run. The step invariants are
// still checked here, by the driver, because the shared safety oracle
// (oracle/safety) cannot be fed soundly by this target. It binds each
// client call to the first release of the pod lock by the caller, starts
// and ends a record's incarnation at the release that first or last shows
// it among the known UIDs, and files the worker's own critical sections as
// the takes of its updates; this target has no pod-lock events at all
// (the workers' critical sections happen inside the unmodified kubelet),
// and the query answers can only be read when a driver step is at rest
// (after one call a woken worker may run concurrently with the next), so
// one step with several calls (housekeeping's SyncKnownPods then its
// creates, a tick's syncs) shows one state for all of them. Measured by
// TestSharedSafetySweep (-sweep.safety 100: 15 families × 100 seeds, with
// and without held wake-ups, 3,000 runs of the unmodified v1.36.3), with
// a critical section reconstructed per call at the step's rest, one for
// the released or woken worker and one (two for the terminating
// callbacks) before each callback:
//
//   - with Known read from the public queries alone (view.go), it reports
//     11,393 violations, 2,058 of them in runs where the direct checks
//     find nothing: before the first SyncKnownPods a record not asked to
//     terminate answers exactly like an unknown UID, so callbacks begin
//     "for a UID that never had a record" (S2: 4,577) and the rest of the
//     incarnation is misread (S17, S9's mirror clause, …);
//   - with Known widened by the driver's own bookkeeping (the UIDs its
//     UpdatePod calls named), 6,023 violations remain, still 239 runs
//     with no direct finding (early-kill 58, static-restart-same-uid 152,
//     swarm 21, swarm-restart 8): a finished record purged by
//     SyncKnownPods and re-created by the create that follows in the same
//     step looks like one record that came back to life (S6, S8, S13, S3,
//     S4, S7, S18);
//   - the rest are the known deviations the direct checks report and
//     classify (S9 KnownTerminated without ContainersBeTerminating = G3,
//     S14 open completions = G1/G2, S3 orphan driving without cancel = G4,
//     S11 grace: a nil grace reaches the event as 0 = GC, lengthened = GA)
//     but without the evidence the classifier needs (the answers before a
//     kill, the move that caused it, a late worker's wake-up, the pod's
//     spec grace), and S5/S19 reports on re-created records not examined
//     further.
//
// So the direct checks that remain are target-specific, each for a reason:
//
//   - S1 overlap and GE (checkStep, began): seen at the syncer's gates;
//     GE needs the held wake-up that a worker of an earlier incarnation
//     read late (syncgate/wakes.go), which no event carries.
//   - S9 lattice (checkLattice): the answers of every UID whose answers
//     are not an unknown UID's, at rest; needs no incarnation tracking.
//   - S7, fake runtime (checkStep): containers that may run (d.running);
//     the View has no runtime to ask.
//   - S14 strict (checkCompletions): G1 vs G2 needs the answers before
//     the kill.
//   - S3 (checkCancelled, checkBegin): the parked call's real context and
//     the live IsPodTerminationRequested; G4 needs the move that caused it.
//   - S11 (checkBegin, checkCancelReason, noteOffers): nil vs 0 (GC), the
//     smallest grace offered and the cancelled call's own grace (GA), the
//     spec grace after natural completion (M1).
//
// Each names a class only through the exact predicate of package explain, and a
// run is explained only if the model with exactly those classes' switches
// accepts its whole history (package explain, linjudge.Check).
//   - Liveness after the settle phase (checkSettled in run.go: L1, L2, L3,
//     L6, and the components' L3, P5 and P6): the shared liveness oracle needs View.Settle, the world's settle
//     phase, which this driver does not have; here the public queries
//     and the driver's completions and killPodNow waits stand in.

func (d *Driver) answersOf(uid types.UID) explain.Answers {
	var a explain.Answers
	for i, q := range d.queryFns() {
		a[i] = q(uid)
	}
	return a
}

func (d *Driver) sortedUniverse() []types.UID {
	out := make([]types.UID, 0, len(d.universe))
	for uid := range d.universe {
		out = append(out, uid)
	}
	slices.Sort(out)
	return out
}

// checkStep runs the direct checks after a step.
func (d *Driver) checkStep() {
	if n := len(d.gates.Overlaps); n > d.checks.overlaps {
		for _, o := range d.gates.Overlaps[d.checks.overlaps:] {
			if class := d.ev.OverlapOf(o); class != "" {
				d.report("direct", "S1", class, o.Msg+" (one of them in a worker of an earlier incarnation, which read its signal late and took the current record)")
				continue
			}
			d.report("direct", "S1", "", o.Msg)
		}
		d.checks.overlaps = n
	}
	for _, uid := range d.sortedUniverse() {
		a := d.answersOf(uid)
		if a != explain.UnknownAfterSync {
			d.checkLattice(uid, a)
			if !a[explain.CouldHaveRunning] && d.running[uid] {
				d.report("direct", "S7", d.ev.RuntimeLeft(uid, d.pods[uid] != nil && d.pods[uid].action.Static, a), fmt.Sprintf(
					"pod %s: CouldHaveRunningContainers=false but its containers were never stopped (no successful SyncTerminatingPod/SyncTerminatingRuntimePod since they may have started)", uid))
			}
		}
	}
	d.checkCompletions()
	d.checkCancelled()
}

// checkLattice is S9 for a known UID.
func (d *Driver) checkLattice(uid types.UID, a explain.Answers) {
	rule := func(ok bool, class, what string) {
		if !ok {
			d.report("direct", "S9", class, fmt.Sprintf("pod %s: %s (answers %s)", uid, what, a))
		}
	}
	rule(a[explain.KnownTerminated] == a[explain.RuntimeBeRemoved], "", "KnownTerminated ≠ RuntimeBeRemoved")
	rule(a[explain.KnownTerminated] != a[explain.CouldHaveRunning], "", "KnownTerminated = CouldHaveRunningContainers")
	rule(!a[explain.BeFinished] || a[explain.KnownTerminated], d.ev.FinishedEarly(uid), "BeFinished but not KnownTerminated")
	rule(!a[explain.KnownTerminated] || a[explain.TermRequested], "", "KnownTerminated but not TerminationRequested")
	rule(!a[explain.ContainersBeTerminating] || a[explain.TermRequested], "", "ContainersBeTerminating but not TerminationRequested")
	rule(!a[explain.KnownTerminated] || a[explain.ContainersBeTerminating], d.ev.LatticeOf(uid, a),
		"KnownTerminated and RuntimeBeRemoved but not ContainersBeTerminating")
	rule(!a[explain.ContentBeRemoved] || d.evicted[uid] || a[explain.RuntimeBeRemoved], "",
		"ContentBeRemoved for a pod never evicted whose runtime is not removable")
}

// checkCompletions is S14 strict: a kill's CompletedCh is never open once
// CouldHaveRunningContainers is false. Classified by explain.Evidence.OpenCompletion.
func (d *Driver) checkCompletions() {
	d.checkCompletionsOf(func(c *completion) bool { return !d.pw.CouldHaveRunningContainers(c.uid) })
}

// checkCompletionsOf is S14 strict for the open completions that
// couldNotRun selects (CouldHaveRunningContainers is false for their UID).
func (d *Driver) checkCompletionsOf(couldNotRun func(*completion) bool) {
	hows := map[string]string{"G1": ": the kill reached a pod that had already finished",
		"G2": ": the pod was finished or forgotten without a successful SyncTerminatingPod since the kill"}
	for _, c := range d.completions {
		if c.fired || c.reported || !couldNotRun(c) {
			continue
		}
		c.reported = true
		class := d.ev.OpenCompletion(c.uid, c.finishedBefore, c.terminatedAfter, c.runtimeAfter)
		d.report("direct", "S14", class, fmt.Sprintf("pod %s: completion %d still open while CouldHaveRunningContainers=false%s", c.uid, c.id, hows[class]))
	}
}

// checkCancelled is S3's cancellation clause: once termination is
// requested, a SyncPod in flight has its context cancelled. The only
// upstream path that requests termination without cancelling is
// SyncKnownPods' orphan driving (G4).
func (d *Driver) checkCancelled() {
	last := d.lastMove()
	for _, c := range d.gates.Parked() {
		if c.Fn != ops.SyncPod || c.S3Reported || c.Ctx.Err() != nil || !d.pw.IsPodTerminationRequested(c.UID) {
			continue
		}
		// Reported once per call: a later kill does not cancel either
		// (termination was already requested), which is the same gap.
		c.S3Reported = true
		class := cmp.Or(explain.Uncancelled(last, d.pods[c.UID] != nil && !d.pods[c.UID].inConfig, c.BeganStep < d.Step),
			d.ev.UncancelledByTwin(c.UID, last))
		d.report("direct", "S3", class, fmt.Sprintf("pod %s: termination requested while SyncPod in flight, its context not cancelled (after %q)", c.UID, last))
	}
}

func (d *Driver) lastMove() script.Move {
	if len(d.Moves) == 0 {
		return script.Move{Kind: script.MoveTick}
	}
	return d.Moves[len(d.Moves)-1]
}

// checkBegin runs the checks at a callback's entry: S3 (no SyncPod begins
// once termination is requested) and S11 (grace non-nil, ≥1, never
// increasing within an incarnation).
func (d *Driver) checkBegin(c *syncgate.Call) {
	switch c.Fn {
	case ops.SyncPod:
		delete(d.leastOffered, c.UID) // offers before were to an earlier incarnation
		if d.pw.IsPodTerminationRequested(c.UID) {
			d.report("direct", "S3", "", fmt.Sprintf("pod %s: SyncPod began after termination was requested", c.UID))
		}
	case ops.SyncTerminatingPod:
		if c.Grace == nil || *c.Grace < 1 {
			d.report("direct", "S11", explain.NilGrace(c.Grace), fmt.Sprintf("pod %s: SyncTerminatingPod got grace %s", c.UID, graceText(c.Grace)))
			return
		}
		g := *c.Grace
		_, termBefore := d.lastGrace[c.UID]
		if d.naturalEnd[c.UID] && !termBefore && c.Pod != nil && c.Pod.Spec.TerminationGracePeriodSeconds != nil &&
			g > *c.Pod.Spec.TerminationGracePeriodSeconds {
			// M1, a documented model difference: completeSync records no
			// grace upstream, so a later kill's override counts as the first
			// grace (SPEC §1.7 step 3 read literally); the model instead gives
			// natural completion the spec grace (model/doc.go, "Where SPEC.md
			// is ambiguous"), which the override may not raise.
			step := d.lastUpdate[c.UID]
			least, offered := d.leastOffered[c.UID]
			class := explain.NaturalGrace(least, offered, g)
			if class == "" {
				class = d.ev.Lengthened(c.UID, g) // GA may have set it, after a force delete
			}
			d.reportAt(step, "direct", "S11", class, fmt.Sprintf(
				"pod %s: SyncTerminatingPod grace %d after natural completion, above the spec grace %d (the model's choice, see M1)",
				c.UID, g, *c.Pod.Spec.TerminationGracePeriodSeconds))
		} else if least, ok := d.leastOffered[c.UID]; ok && g > least {
			step := d.lastUpdate[c.UID]
			d.reportAt(step, "direct", "S11", d.ev.Lengthened(c.UID, g), fmt.Sprintf(
				"pod %s: SyncTerminatingPod grace %d, above the %d offered earlier (the update at step %d lengthened it)", c.UID, g, least, step))
		} else if last, ok := d.lastGrace[c.UID]; ok && g > last {
			step := d.lastUpdate[c.UID]
			d.reportAt(step, "direct", "S11", d.ev.Lengthened(c.UID, g), fmt.Sprintf(
				"pod %s: SyncTerminatingPod grace rose from %d to %d (after the update at step %d)", c.UID, last, g, step))
		}
		d.lastGrace[c.UID] = g
	}
}

func graceText(g *int64) string {
	if g == nil {
		return "nil"
	}
	return fmt.Sprint(*g)
}

// terminatingInFlight is uid's parked SyncTerminatingPod whose context is
// still live, if termination was requested before the coming update.
// A runtime-only call runs with the record's grace, which a runtime kill
// sets to 1 (housekeeping's override); the call itself is not given one.
func (d *Driver) terminatingInFlight(uid types.UID) *syncgate.Call {
	for _, c := range d.gates.Parked() {
		if c.UID != uid || c.Ctx.Err() != nil {
			continue
		}
		switch {
		case c.Fn == ops.SyncTerminatingPod && c.Grace != nil:
			return c
		case c.Fn == ops.SyncTerminatingRuntimePod:
			one := int64(1)
			return &syncgate.Call{UID: c.UID, Fn: c.Fn, Grace: &one, Ctx: c.Ctx}
		}
	}
	return nil
}

// checkKillRequests: once UpdatePod(kill) returned, termination is
// requested (SPEC §1.4 step 6; a finished or terminated record has it
// already, and nothing but a purge or a finished runtime-only termination,
// neither of which can happen inside the call, forgets it): S13's
// premise, checked right after the call.
func (d *Driver) checkKillRequests(kind kubetypes.SyncPodType, uid types.UID) {
	if kind == kubetypes.SyncPodKill && !d.pw.IsPodTerminationRequested(uid) {
		d.report("direct", "S13", "", fmt.Sprintf("pod %s: UpdatePod(kill) returned but IsPodTerminationRequested is false", uid))
	}
}

// checkCancelReason: an update to a pod already terminating may cancel the
// terminating call only by shortening the grace (SPEC §1.7: the effective
// grace never increases). If the update offered no grace below the one the
// call runs with and the call was cancelled anyway, the real code changed
// the grace: GA iff the update's pod had DeletionGracePeriodSeconds=0 and a
// kill override other than the call's grace (upstream compares the override
// with that 0, takes it, and cancels on any change).
func (d *Driver) checkCancelReason(c *syncgate.Call, o kubelet.UpdatePodOptions) {
	if c == nil || c.Ctx.Err() == nil || o.Pod == nil {
		return
	}
	offered := int64(-1)
	consider := func(g *int64) {
		if g != nil && (offered < 0 || max(*g, 1) < offered) {
			offered = max(*g, 1)
		}
	}
	consider(o.Pod.DeletionGracePeriodSeconds)
	if ko := o.KillPodOptions; ko != nil {
		consider(ko.PodTerminationGracePeriodSecondsOverride)
	}
	if offered < 0 || offered >= *c.Grace {
		class := ""
		if g := o.Pod.DeletionGracePeriodSeconds; g != nil && *g == 0 && o.KillPodOptions != nil {
			if ov := o.KillPodOptions.PodTerminationGracePeriodSecondsOverride; ov != nil && max(*ov, 1) != *c.Grace {
				class = "GA"
			}
		}
		d.report("direct", "S11", class, fmt.Sprintf(
			"pod %s: %s (grace %d) cancelled by an update offering no shorter grace (%s)",
			c.UID, c.Fn, *c.Grace, graceText(&offered)))
	}
}

// noteOffers remembers the smallest grace an update offered (deletion
// grace or kill override, clamped to ≥1): SPEC §1.7 never lets the
// effective grace exceed it within an incarnation. An update to a finished
// record offers nothing (UpdatePod ignores it; the next update of the UID
// after the purge starts a new incarnation).
func (d *Driver) noteOffers(o kubelet.UpdatePodOptions) {
	if o.Pod == nil {
		return
	}
	if a := d.answersOf(o.Pod.UID); a[explain.BeFinished] && a != explain.UnknownAfterSync {
		return
	}
	offer := func(g *int64) {
		if g == nil {
			return
		}
		v := max(*g, 1)
		if least, ok := d.leastOffered[o.Pod.UID]; !ok || v < least {
			d.leastOffered[o.Pod.UID] = v
		}
	}
	offer(o.Pod.DeletionGracePeriodSeconds)
	if o.KillPodOptions != nil {
		offer(o.KillPodOptions.PodTerminationGracePeriodSecondsOverride)
		if g, ov := o.Pod.DeletionGracePeriodSeconds, o.KillPodOptions.PodTerminationGracePeriodSecondsOverride; g != nil && *g == 0 && ov != nil {
			d.ev.ZeroDeletionOffers[o.Pod.UID] = append(d.ev.ZeroDeletionOffers[o.Pod.UID], max(*ov, 1))
			d.zeroDeletionOffered = true
		}
	}
}
