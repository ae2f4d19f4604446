package realkubelet

import (
	"slices"

	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/realkubelet/script"
	"github.com/podsim/podsim/realkubelet/syncgate"
)

// How a finding is explained (docs/upstream-findings.md, "How every
// finding is classified").
//
// Each known upstream deviation is stated exactly once, either as a rule of
// the reference model that a switch turns back into upstream's
// (deviation.Set: G1, G2, G3, G4, GA, GC; M1 is GC's, see classSwitch)
// or, where the model has no
// such rule, as an exact predicate over the operation that deviates, here
// (GB, GD, GE). A direct check names a class only when the deviation's
// exact clause holds for the pod, path and operation it saw (the classify
// functions below and in checks.go); otherwise its finding is unexplained.
// A run is explained only if every direct finding names a class of the
// catalogue AND the whole history is accepted by the model with exactly
// the switches those classes name (explainHistory). A new bug therefore
// cannot hide behind a known deviation: it must both satisfy that
// deviation's clause and produce a history that the model with that
// deviation accepts.

// evidence is what the exact predicates need beyond the checks' own state,
// kept per UID by the driver as it steps.
type evidence struct {
	// startedInc: a SyncPod or SyncTerminatingPod began for the UID since
	// its last incarnation ended (the worker started the pod).
	startedInc map[types.UID]bool
	// runtimeKillStep is the step of the UID's latest runtime-only kill.
	runtimeKillStep map[types.UID]int
	// inherited: the current kubelet process began with the UID's
	// containers possibly running (the previous process's, restart.go),
	// until the UID's incarnation ends.
	inherited map[types.UID]bool
	// zeroDeletionOffers are the kill overrides (clamped to ≥1) offered by
	// updates whose pod had DeletionGracePeriodSeconds=0, in the current
	// incarnation: the only offers upstream compares with 0 (GA).
	zeroDeletionOffers map[types.UID][]int64
	// droppedRetry: a work-queue retry of the UID came due while it was out
	// of config, after its latest callback failed (GD).
	droppedRetry map[types.UID]bool
	// ghostFrom is the step at which a worker goroutine of an earlier
	// incarnation first began a callback of the UID's current record (GE).
	ghostFrom map[types.UID]int
}

func newEvidence() evidence {
	return evidence{startedInc: map[types.UID]bool{}, runtimeKillStep: map[types.UID]int{}, inherited: map[types.UID]bool{},
		zeroDeletionOffers: map[types.UID][]int64{}, droppedRetry: map[types.UID]bool{}, ghostFrom: map[types.UID]int{}}
}

// incarnationOver forgets what the predicates keep per incarnation.
func (e *evidence) incarnationOver(uid types.UID) {
	delete(e.startedInc, uid)
	delete(e.zeroDeletionOffers, uid)
	delete(e.runtimeKillStep, uid)
	delete(e.inherited, uid)
}

// classOverlap is S1: GE iff one of the two callbacks in flight at once was
// begun by a worker goroutine of an earlier incarnation that read a
// buffered signal late (the driver moved a signal of an older pipe of the
// UID in that callback's step, wakes.go).
func classOverlap(o syncgate.Overlap) string {
	if o.First.Ghost || o.Second.Ghost {
		return "GE"
	}
	return ""
}

// classRuntimeLeft is S7 (CouldHaveRunningContainers=false while the fake
// runtime may run containers of the UID): GB iff the pod is static, the
// runtime reported it (a runtime-only kill), the worker never started it
// in this incarnation, and it is finished: cleanupUnstartedPod finished a
// pod the runtime still runs.
func (d *Driver) classRuntimeLeft(uid types.UID, a answers) string {
	p := d.pods[uid]
	// The runtime has the containers either because it reported them (a
	// runtime-only kill) or because the previous kubelet process may have
	// run them (a restart): either way the workers never started the pod
	// and cleanupUnstartedPod finished it (docs/upstream-findings.md, GB).
	// The restart case also needs the exact answers cleanupUnstartedPod
	// leaves (a first-sight terminal shortcut, say, leaves others).
	hasRuntime := d.ev.runtimeKillStep[uid] > 0 || (d.ev.inherited[uid] && classLattice(a) == "G3")
	if p != nil && p.action.Static && hasRuntime && !d.ev.startedInc[uid] && a[qBeFinished] {
		return "GB"
	}
	return ""
}

// cleanedUpUnstarted are the answers cleanupUnstartedPod leaves with deviation.G3
// (ContentBeRemoved aside): terminated, finished, termination requested,
// never acknowledged.
var cleanedUpUnstarted = answers{qKnownTerminated: true, qBeFinished: true, qTermRequested: true, qRuntimeBeRemoved: true}

// classLattice is the S9 rule "KnownTerminated ⇒ ContainersBeTerminating":
// G3 iff the answers are exactly those of an unstarted cleanup.
func classLattice(a answers) string {
	b := a
	b[qContentBeRemoved] = false
	if b == cleanedUpUnstarted {
		return "G3"
	}
	return ""
}

// classOpenCompletion is S14 strict (a completion open while
// CouldHaveRunningContainers is false): G1 iff the kill reached a pod
// already finished (UpdatePod's early return); G2 iff no SyncTerminatingPod
// of the UID succeeded since the kill (completeTerminating closes every
// waiting channel) and either the worker never started the pod (unstarted
// cleanup or purge) or a SyncTerminatingRuntimePod succeeded since the kill
// (completeTerminatingRuntimePod).
func (d *Driver) classOpenCompletion(c *completion) string {
	switch {
	case c.finishedBefore:
		return "G1"
	case !c.terminatedAfter && (!d.ev.startedInc[c.uid] || c.runtimeAfter):
		return "G2"
	}
	return ""
}

// classUncancelled is S3's cancellation clause (a SyncPod in flight with a
// live context while termination is requested): G4 iff the step was
// housekeeping (SyncKnownPods), the pod is not in config (an orphan it
// drives), and the call was already in flight before the step (so
// termination was requested by this step: the check runs every step).
func (d *Driver) classUncancelled(c *syncgate.Call, last script.Move) string {
	p := d.pods[c.UID]
	if last.Kind == script.MoveAction && last.Action.Kind == plan.SyncKnown && p != nil && !p.inConfig && c.BeganStep < d.Step {
		return "G4"
	}
	return ""
}

// classLengthened is S11 for a SyncTerminatingPod grace g above one offered
// before (or above its previous grace): GA iff an update of the incarnation
// whose pod had DeletionGracePeriodSeconds=0 offered an override of at
// least g (upstream compares the override with that 0 and takes it; later
// updates only lower it from there, and the model with deviation.GA checks the
// exact value).
func (d *Driver) classLengthened(uid types.UID, g int64) string {
	if slices.ContainsFunc(d.ev.zeroDeletionOffers[uid], func(o int64) bool { return o >= g }) {
		return "GA"
	}
	return ""
}

// classNaturalGrace is S11 for a first SyncTerminatingPod grace g above the
// spec grace after natural completion: M1 iff g is the least grace offered
// since (the override became the first grace, completeSync having recorded
// none).
func (d *Driver) classNaturalGrace(uid types.UID, g int64) string {
	if least, ok := d.leastOffered[uid]; ok && least == g {
		return "M1"
	}
	return ""
}

// classStuck is L1/L2 for a pod that never terminated or finished: GD iff
// its latest callback failed, a work-queue retry of it came due while it
// was out of config (getPodsToSync dropped it), it came back to config with
// a create that UpdatePod dropped as a restart, and it is in config now
// (SyncKnownPods keeps it without a replay: nothing re-drives it).
func (d *Driver) classStuck(uid types.UID) string {
	if p := d.pods[uid]; p != nil && p.inConfig && d.restartPending[uid] && d.lastFailed[uid] && d.ev.droppedRetry[uid] {
		return "GD"
	}
	return ""
}
