package actors

import (
	"fmt"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/realkubelet/planted"
)

// sdCancel is what the driver keeps of a node shutdown's cancellation
// (the ShutdownCancel action: logind's PrepareForShutdown(false)).
//
// The real manager reads logind's signals in one event loop, so a
// cancellation that comes while processShutdownEvent runs waits until it
// returns (the kills go on); the loop then reopens admission
// (nodeShuttingDownNow = false) and takes a new inhibit lock. The driver
// holds the cancellation until the processing ended (Done), delivers it,
// and from then on expects admission open: a pod first added after it is
// not added in a shutdown (K5 does not apply), and a rejection by the
// manager is a finding (P7, ShutdownProblems). Logind sends its next
// "shutting down" only after that, to the same manager (shutdownAgain),
// restarting under it first with --logind-restart, as before the first.
type sdCancel struct {
	// snapshot: the active pods the manager's processing asks for, taken
	// when its shutdown event is sent.
	snapshot []*v1.Pod
	// cancelPending: a ShutdownCancel came while the shutdown was in
	// force, not yet delivered; cancelled: the loop was sent it.
	cancelPending, cancelled bool
	// shutdownWrong: the manager's rejections with no shutdown in force,
	// and the shutdowns it was sent holding no inhibit lock (trigger).
	shutdownWrong []string
}

// ShuttingDown reports whether a node shutdown is in force: one began and
// its cancellation was not delivered.
func (a *Actors) ShuttingDown() bool { return a.begun && !a.cancelled && !a.quiet }

// ShutdownBegun reports whether a node shutdown was announced to this
// process, or it started during one.
func (a *Actors) ShutdownBegun() bool { return a.begun }

// CancelShutdown is the ShutdownCancel action: logind withdraws the
// shutdown in force, and the manager's loop reads it as soon as it waits
// for a signal (deliverCancel). With no shutdown in force, nothing
// happens.
func (a *Actors) CancelShutdown() {
	if a.heldOver.on {
		a.heldOver.on, a.cancelled = false, true // inherit.go
		a.Shutdown.Withdraw()
		return
	}
	if !a.ShuttingDown() || a.cancelPending {
		return
	}
	a.Shutdown.Withdraw()
	a.cancelPending = true
	a.deliverCancel()
}

// deliverCancel sends the pending cancellation once the shutdown's
// processing ended (after a step: Poll); if the loop does not take it,
// it stays pending (Unfinished says so at the end).
func (a *Actors) deliverCancel() {
	if !a.cancelPending || !a.ShutdownDone || a.plant != planted.CancelLost && !a.Shutdown.Cancel() {
		return
	}
	a.cancelPending, a.cancelled = false, true
	a.host.Tape().Note(history.ShutdownCancelled{})
}

// shutdownAgain is a Shutdown action once the manager read a
// cancellation: logind's next "shutting down" to the same manager
// (announce, as the first; if logind restarting loses the manager,
// admission stays open). While a shutdown is in force, logind sends none,
// and nothing happens.
func (a *Actors) shutdownAgain() {
	if !a.ShuttingDown() {
		a.announce(false)
	}
}

// trigger sends logind's "shutting down" to the manager, which must hold
// an inhibit lock then: logind delays the power-off only for the holders
// of one, so without it the node goes down with no graceful shutdown
// (after a cancellation, the lock the loop took again; kubernetes#98087's
// scheme). A manager holding none is P7 (ShutdownProblems).
func (a *Actors) trigger() {
	if !a.Shutdown.HoldsLock() {
		a.shutdownWrong = append(a.shutdownWrong, fmt.Sprintf(
			"the node shutdown manager held no inhibit lock when logind announced the shutdown at %v: logind would not wait for it (no graceful shutdown)",
			a.host.Tape().Elapsed()))
	}
	a.Shutdown.Trigger()
}

// judgeRejection notes a rejection of uid by the manager when no
// shutdown is in force: none began, or its cancellation was read.
func (a *Actors) judgeRejection(uid types.UID) {
	when := "after it was sent the shutdown's cancellation"
	if !a.begun {
		when = "before any node shutdown"
	}
	if !a.inShutdown() {
		a.shutdownWrong = append(a.shutdownWrong, fmt.Sprintf(
			"the node shutdown manager rejected pod %s at %v, %s", uid, a.host.Tape().Elapsed(), when))
	}
}

// CancelPending reports whether a cancellation waits for the manager's
// loop to read it.
func (a *Actors) CancelPending() bool { return a.cancelPending }

// ShutdownProblems are the manager's rejections with no shutdown in
// force, and the shutdown events it was sent holding no inhibit lock
// (P7).
func (a *Actors) ShutdownProblems() []string { return a.shutdownWrong }

func uidsOf(pods []*v1.Pod) []types.UID {
	var out []types.UID
	for _, p := range pods {
		out = append(out, p.UID)
	}
	return out
}
