// Package explain states the known upstream deviations that the real-kubelet
// driver's direct checks may name, each as an exact predicate, over the
// query answers the checks read (Answers) and the evidence the driver keeps
// per UID as it steps (Evidence). How a finding is explained
// (docs/upstream-findings.md, "How every finding is classified"):
//
// Each known upstream deviation is stated exactly once, either as a rule of
// the reference model that a switch turns back into upstream's
// (deviation.Set: G1, G2, G3, G4, GA, GC; M1 is GC's, see NaturalGrace) or,
// where the model has no such rule, as an exact predicate over the
// operation that deviates, here (GB, GD, GE). A direct check names a class
// only when the deviation's exact clause holds for the pod, path and
// operation it saw (the predicates below); otherwise its finding is
// unexplained. A run is explained only if every direct finding names a
// class of the catalogue AND the whole history is accepted by the model
// with exactly the switches those classes name (package linjudge's
// Check). A new bug therefore cannot hide behind a known deviation:
// it must both satisfy that deviation's clause and produce a history that
// the model with that deviation accepts.
//
// The status component's deviations (GF, GG) are stated beside it, in
// package status.
package explain

import (
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/realkubelet/script"
	"github.com/podsim/podsim/realkubelet/syncgate"
)

// Answers are the seven query answers for one UID, in ops.QueryKind
// order (the mirror-pod query, by full name, aside).
type Answers [7]bool

// The queries, as indexes into Answers.
const (
	KnownTerminated = iota
	CouldHaveRunning
	BeFinished
	TermRequested
	ContainersBeTerminating
	RuntimeBeRemoved
	ContentBeRemoved
)

// UnknownAfterSync is what every query says of a UID the workers do not
// know once SyncKnownPods ran (SPEC §1.14 U1). No known pod answers so.
var UnknownAfterSync = Answers{false, false, true, false, true, true, true}

func (a Answers) String() string {
	names := [...]string{"KT", "CHR", "BF", "TR", "CBT", "RBR", "CBR"}
	s := ""
	for i, v := range a {
		if i > 0 {
			s += " "
		}
		s += fmt.Sprintf("%s=%v", names[i], v)
	}
	return s
}

// Evidence is what the exact predicates need beyond the checks' own state,
// kept per UID by the driver as it steps.
type Evidence struct {
	// StartedInc: a SyncPod or SyncTerminatingPod began for the UID since
	// its last incarnation ended (the worker started the pod).
	StartedInc map[types.UID]bool
	// RuntimeKillStep is the step of the UID's latest runtime-only kill.
	RuntimeKillStep map[types.UID]int
	// Inherited: the UID's current incarnation began with its containers
	// possibly running: the previous process's (the driver's restart), or
	// those an earlier incarnation left running when its record ended
	// without a successful terminating call. Until the incarnation ends.
	Inherited map[types.UID]bool
	// ZeroDeletionOffers are the kill overrides (clamped to ≥1) offered by
	// updates whose pod had DeletionGracePeriodSeconds=0, in the current
	// incarnation: the only offers upstream compares with 0 (GA).
	ZeroDeletionOffers map[types.UID][]int64
	// DroppedRetry: a work-queue retry of the UID came due while it was out
	// of config, after its latest callback failed (GD).
	DroppedRetry map[types.UID]bool
	// GhostFrom is the step at which a worker goroutine of an earlier
	// incarnation first began a callback of the UID's current record (GE).
	GhostFrom map[types.UID]int
	// CompletedOntoNext: a SyncTerminatingPod whose record ended while it
	// was in flight succeeded, and the worker's completeTerminating, which
	// looks the record up by UID, marked the UID's current record
	// terminated (GE's lattice). Until the incarnation ends.
	CompletedOntoNext map[types.UID]bool
	// FinishedOntoNext: a SyncTerminatedPod whose record ended while it
	// was in flight succeeded, and the worker's completeTerminated, which
	// looks the record up by UID too, marked the UID's current record
	// finished (GE: finished before it terminated). Until the incarnation
	// ends.
	FinishedOntoNext map[types.UID]bool
}

// NewEvidence is the evidence of a kubelet process that has seen nothing.
func NewEvidence() Evidence {
	return Evidence{StartedInc: map[types.UID]bool{}, RuntimeKillStep: map[types.UID]int{}, Inherited: map[types.UID]bool{},
		ZeroDeletionOffers: map[types.UID][]int64{}, DroppedRetry: map[types.UID]bool{}, GhostFrom: map[types.UID]int{},
		CompletedOntoNext: map[types.UID]bool{}, FinishedOntoNext: map[types.UID]bool{}}
}

// IncarnationOver forgets what the predicates keep per incarnation.
func (e *Evidence) IncarnationOver(uid types.UID) {
	delete(e.StartedInc, uid)
	delete(e.ZeroDeletionOffers, uid)
	delete(e.RuntimeKillStep, uid)
	delete(e.Inherited, uid)
	delete(e.CompletedOntoNext, uid)
	delete(e.FinishedOntoNext, uid)
}

// Adopted: a goroutine of an earlier incarnation adopted a record of uid
// in this process (GhostFrom), the precondition of every GE predicate.
func (e *Evidence) Adopted(uid types.UID) bool {
	_, ok := e.GhostFrom[uid]
	return ok
}

// NoteGhost records that uid's current record was adopted by a goroutine
// of an earlier incarnation at step (its first such step only).
func (e *Evidence) NoteGhost(uid types.UID, step int) {
	if !e.Adopted(uid) {
		e.GhostFrom[uid] = step
	}
}

// Overlap is S1: GE iff one of the two callbacks in flight at once was
// begun by a worker goroutine of an earlier incarnation that read a
// buffered signal late (the driver moved a signal of an older pipe of the
// UID in that callback's step, the driver's wakes.go).
func Overlap(o syncgate.Overlap) string {
	if o.First.Ghost || o.Second.Ghost {
		return "GE"
	}
	return ""
}

// OverlapOf is S1 with the UID's evidence: Overlap's GE, and GE too iff
// a ghost adopted a record of the UID in this process (GhostFrom) and one
// of the two calls is of a record that ended while it was in flight
// (syncgate.Call.RecordEnded): the ghost's completeTerminatingRuntimePod
// forgot the record of a call another goroutine had in flight, and the
// UID's next record got a goroutine of its own (hold swarm-restart seed
// 3,066, testdata/GE-completion-onto-next-record.script).
func (e *Evidence) OverlapOf(o syncgate.Overlap) string {
	if c := Overlap(o); c != "" {
		return c
	}
	if e.Adopted(o.UID) && (o.First.RecordEnded || o.Second.RecordEnded) {
		return "GE"
	}
	return ""
}

// RuntimeLeft is S7 (CouldHaveRunningContainers=false while the fake
// runtime may run containers of the UID): GB iff the pod is static, the
// runtime reported it (a runtime-only kill), the worker never started it
// in this incarnation, and it is finished: cleanupUnstartedPod finished a
// pod the runtime still runs.
func (e *Evidence) RuntimeLeft(uid types.UID, static bool, a Answers) string {
	// The runtime has the containers either because it reported them (a
	// runtime-only kill) or because the previous kubelet process may have
	// run them (a restart): either way the workers never started the pod
	// and cleanupUnstartedPod finished it (docs/upstream-findings.md, GB).
	// The restart case also needs the exact answers cleanupUnstartedPod
	// leaves (a first-sight terminal shortcut, say, leaves others).
	hasRuntime := e.RuntimeKillStep[uid] > 0 || (e.Inherited[uid] && Lattice(a) == "G3")
	if static && hasRuntime && !e.StartedInc[uid] && a[BeFinished] {
		return "GB"
	}
	return ""
}

// cleanedUpUnstarted are the answers cleanupUnstartedPod leaves with deviation.G3
// (ContentBeRemoved aside): terminated, finished, termination requested,
// never acknowledged.
var cleanedUpUnstarted = Answers{KnownTerminated: true, BeFinished: true, TermRequested: true, RuntimeBeRemoved: true}

// LatticeOf is the S9 rule "KnownTerminated ⇒ ContainersBeTerminating"
// for uid: G3 as Lattice says; else GE iff a worker goroutine of an
// earlier incarnation adopted a record of the UID in this process
// (GhostFrom) and a SyncTerminatingPod of an ended record then completed
// onto the current one (CompletedOntoNext), which no termination reached:
// two goroutines worked on the UID, one's call ended the record (its
// completeTerminatingRuntimePod) while the other's was in flight (hold
// swarm-restart seed 3,066, testdata/GE-completion-onto-next-record.script).
func (e *Evidence) LatticeOf(uid types.UID, a Answers) string {
	if c := Lattice(a); c != "" {
		return c
	}
	if e.Adopted(uid) && e.CompletedOntoNext[uid] {
		return "GE"
	}
	return ""
}

// FinishedEarly is the S9 rule "BeFinished ⇒ KnownTerminated" for uid:
// GE iff a worker goroutine of an earlier incarnation adopted a record of
// the UID in this process (GhostFrom) and a SyncTerminatedPod of an ended
// record then completed onto the current one (FinishedOntoNext), which
// was terminating, not terminated: completeTerminated marks whatever
// record the UID has finished (guided hold error-shapes runs,
// testdata/GE-finished-onto-next-record.script).
func (e *Evidence) FinishedEarly(uid types.UID) string {
	if e.Adopted(uid) && e.FinishedOntoNext[uid] {
		return "GE"
	}
	return ""
}

// NeverFinished is L2 "terminated but never finished" for uid (and the
// teardown's, for the pods the workers never let go): GE iff a ghost
// adopted a record of the UID (GhostFrom) and a SyncTerminatingPod of an
// ended record completed onto the current one (CompletedOntoNext): the
// current record was marked terminated by a call that was not its own,
// and none of its own is left to run its SyncTerminatedPod (the same
// guided hold error-shapes runs).
func (e *Evidence) NeverFinished(uid types.UID) string {
	if e.Adopted(uid) && e.CompletedOntoNext[uid] {
		return "GE"
	}
	return ""
}

// Lattice is the S9 rule "KnownTerminated ⇒ ContainersBeTerminating":
// G3 iff the answers are exactly those of an unstarted cleanup.
func Lattice(a Answers) string {
	b := a
	b[ContentBeRemoved] = false
	if b == cleanedUpUnstarted {
		return "G3"
	}
	return ""
}

// OpenCompletion is S14 strict (a completion open while
// CouldHaveRunningContainers is false) for a kill of uid: G1 iff the kill
// reached a pod already finished (UpdatePod's early return); G2 iff no
// SyncTerminatingPod of the UID succeeded since the kill
// (completeTerminating closes every waiting channel) and either the worker
// never started the pod (unstarted cleanup or purge) or a
// SyncTerminatingRuntimePod succeeded since the kill
// (completeTerminatingRuntimePod).
func (e *Evidence) OpenCompletion(uid types.UID, finishedBefore, terminatedAfter, runtimeAfter bool) string {
	switch {
	case finishedBefore:
		return "G1"
	case !terminatedAfter && (!e.StartedInc[uid] || runtimeAfter):
		return "G2"
	}
	return ""
}

// NeverFired is L6 (a kill's completion never fired) for a completion no
// S14 was made about (CouldHaveRunningContainers was never false while it
// was open, so OpenCompletion never judged it). Of the record the kill
// joined: G2 iff a SyncTerminatingRuntimePod of it succeeded after the
// kill and no SyncTerminatingPod did (completeTerminatingRuntimePod
// deletes the record without closing notifyPostTerminating; only
// completeTerminating closes it); GD iff the record is still the UID's,
// no SyncTerminatingPod of it succeeded, and the UID is stuck by GD (stuck
// is its L1/L2 class, Stuck): GD's record never completes its
// termination, so nothing can close the channel.
func NeverFired(terminatedAfter, runtimeAfter, recordOver bool, stuck string) string {
	switch {
	case terminatedAfter:
		return ""
	case runtimeAfter:
		return "G2"
	case !recordOver && stuck == "GD":
		return "GD"
	}
	return ""
}

// Uncancelled is S3's cancellation clause (a SyncPod in flight with a
// live context while termination is requested): G4 iff the step, last,
// was housekeeping (SyncKnownPods), the pod is known to the driver and not
// in config (an orphan it drives), and the call was already in flight
// before the step (so termination was requested by this step: the check
// runs every step).
func Uncancelled(last script.Move, orphan, beganBefore bool) string {
	if last.Kind == script.MoveAction && last.Action.Kind == plan.SyncKnown && orphan && beganBefore {
		return "G4"
	}
	return ""
}

// UncancelledByTwin is S3's cancellation clause for uid's SyncPod in
// flight when the step, last, released another SyncPod of the UID with a
// terminal outcome (its pod completed by itself: termination requested,
// nothing to cancel from that call's side): GE iff a ghost adopted a
// record of the UID (GhostFrom), for only two goroutines on one record
// have two SyncPods of a UID in flight at once (guided hold swarm runs
// 12,464 and 12,951, testdata/GE-twin-syncpod-terminal.script).
func (e *Evidence) UncancelledByTwin(uid types.UID, last script.Move) string {
	if e.Adopted(uid) && last.Kind == script.MoveRelease && last.UID == uid &&
		last.Outcome == syncgate.ReturnTerminal {
		return "GE"
	}
	return ""
}

// Lengthened is S11 for a SyncTerminatingPod grace g above one offered
// before (or above its previous grace): GA iff an update of the incarnation
// whose pod had DeletionGracePeriodSeconds=0 offered an override of at
// least g (upstream compares the override with that 0 and takes it; later
// updates only lower it from there, and the model with deviation.GA checks the
// exact value).
func (e *Evidence) Lengthened(uid types.UID, g int64) string {
	if slices.ContainsFunc(e.ZeroDeletionOffers[uid], func(o int64) bool { return o >= g }) {
		return "GA"
	}
	return ""
}

// NaturalGrace is S11 for a first SyncTerminatingPod grace g above the
// spec grace after natural completion, least (if offered) being the least
// grace offered since: M1 iff g is that least grace (the override became
// the first grace, completeSync having recorded none).
func NaturalGrace(least int64, offered bool, g int64) string {
	if offered && least == g {
		return "M1"
	}
	return ""
}

// NilGrace is S11 for a SyncTerminatingPod grace g that is nil or below 1:
// a nil grace is GC (the worker-driven paths, orphan driving in
// SyncKnownPods and natural completion in completeSync, replay an update
// that carries no grace); a non-nil grace below 1 is unexplained.
func NilGrace(g *int64) string {
	if g == nil {
		return "GC"
	}
	return ""
}

// Stuck is L1/L2 for a pod that never terminated or finished: GD iff its
// latest callback failed (lastFailed), a work-queue retry of it came due
// while it was out of config (getPodsToSync dropped it), it came back to
// config with a create that UpdatePod dropped as a restart
// (restartPending), and it is in config now (SyncKnownPods keeps it
// without a replay: nothing re-drives it).
func (e *Evidence) Stuck(uid types.UID, inConfig, restartPending, lastFailed bool) string {
	if inConfig && restartPending && lastFailed && e.DroppedRetry[uid] {
		return "GD"
	}
	return ""
}
