package actors

import (
	"fmt"
	"time"

	"github.com/podsim/podsim/realkubelet/planted"
)

// heldOver is what a kubelet process keeps of a node shutdown that began
// in an earlier process and is still in force: logind announced it
// (PrepareForShutdown(true)) to that process, once, and withdrew nothing.
//
// The real manager of the new process is started as the kubelet starts
// it (InheritShutdown): it takes an inhibit lock, watches logind, and is
// told nothing, since logind does not announce a shutdown again; upstream's
// start does not ask logind whether one is in progress
// (kubernetes#122674), so its Admit sees none. The node's fact stays:
// a pod first added now is added in the shutdown (K5 judges it), and the
// manager's rejections are right (a kubelet that learns of the shutdown
// at its start would reject). A ShutdownCancel ends it (logind withdrew
// it; the manager, which never heard of it, is not sent the withdrawal:
// upstream's loop would only take a second inhibit lock); a Shutdown
// action changes nothing while it lasts.
type heldOver struct {
	on bool
	at time.Duration // when the shutdown began
	// quiet: the manager was started during the shutdown and has been
	// told of none since (its processing is not awaited).
	quiet bool
}

// inShutdown: admission is in a node shutdown, one this process was told
// of and has not read the cancellation of, or one it started during.
func (a *Actors) inShutdown() bool { return a.ShuttingDown() || a.heldOver.on }

// NodeShuttingDown reports whether logind shuts the node down as far as
// the kubelet's next process is concerned, and since when: this process
// was told and no cancellation was asked since, or it started during the
// shutdown.
func (a *Actors) NodeShuttingDown() (bool, time.Duration) {
	if a.heldOver.on {
		return true, a.heldOver.at
	}
	return a.ShuttingDown() && !a.cancelPending, a.shutdownAt
}

// InheritShutdown starts the manager of a process that starts while
// logind shuts the node down (since at), with the groups of the process
// before (old); the pods old saw first added in the shutdown stay so.
// With learn (tests only) the manager is told of the shutdown at once, as
// a kubelet that asks logind at its start would learn it.
func (a *Actors) InheritShutdown(old *Actors, at time.Duration, learn bool) {
	a.heldOver, a.begun = heldOver{on: true, at: at, quiet: true}, true
	for uid, in := range old.AddedInShutdown {
		if in {
			a.AddedInShutdown[uid] = true
		}
	}
	if a.StartManager(old.groups) && (learn || a.plant == planted.RestartToldAdmits) {
		a.heldOver = heldOver{}
		a.announce(true)
	}
}

// Unheard reports whether a node shutdown is in force that this process's
// manager never heard of: logind did not tell it (it started during the
// shutdown), and asked, it says it is not shutting down (k5class's GK). A
// manager that learned of the shutdown by itself, as one that asks logind
// at its start does, has heard of it.
func (a *Actors) Unheard() bool {
	return a.heldOver.on && a.Shutdown != nil && !a.Shutdown.ShuttingDown()
}

// LingeringLock says whether the manager holds an inhibit lock while
// logind shuts the node down and its processing is over, or never began
// ("" if not): logind then waits its whole inhibit delay before it powers
// off, though the lock exists only for the time the kubelet's kills need.
// unheard: the manager never heard of the shutdown (Unheard; GK: the
// lock is the one its start took, kubernetes#122674).
func (a *Actors) LingeringLock() (msg string, unheard bool) {
	down, at := a.NodeShuttingDown()
	if !down || a.Shutdown == nil || a.shutdownBusy() || !a.Shutdown.HoldsLock() {
		return "", false
	}
	return fmt.Sprintf("the node shutdown manager holds an inhibit lock with logind shutting the node down since %v and no shutdown "+
		"processing of its own left: logind waits its whole inhibit delay before it powers the node off", at), a.Unheard()
}
