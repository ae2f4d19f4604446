// Package oracle is the seam between a target and the checks that judge
// it. A target (the simulated kubelet world, the real kubelet's pod
// workers, ...) emits a history.Event for everything that happens around
// the code under test and offers a View: what a caller of that code could
// ask of it. Each oracle, in a package of its own below this one, observes
// the events and reads the View; none imports a world, a target or the
// code under test, so one oracle judges every target that can feed it.
//
// A target that cannot offer part of the View returns nil for it, and the
// composition root (package run) gives it only the oracles whose parts it
// offers: the kubelet-level checks need Kubelet, liveness needs Settle.
package oracle

import (
	"errors"
	"time"

	"github.com/podsim/podsim/history"
)

// Oracle judges a run: it watches the event stream and gives its verdict
// when the run is over (runErr is the target's error, if the run did not
// end normally). The layers (docs/design.md "Oracles"): the workers' own
// invariants (the target's, always on), step invariants (safety), the
// linearizability check, liveness, and the kubelet-level checks.
type Oracle interface {
	// Observe sees one event as it happens, in the goroutine that caused
	// it: it must not block. v and ev are valid only during the call (at
	// LockReleasing the pod lock is held, so v.Workers shows the state
	// every critical section so far committed); ev is every observer's,
	// read by pointer so that it is not copied for each: an oracle neither
	// writes it nor keeps the pointer (it copies what it keeps).
	Observe(v View, ev *history.Event)
	// Finish gives the oracle's violations, in the order found.
	Finish(v View, runErr error) []history.Violation
}

// ErrEpochEnded is the run error an oracle is finished with when a kubelet
// restart ended its epoch: its history stops where the process did (calls
// in flight are cut, as after a failed run), and nothing of it is judged as
// settled (a dead kubelet owes no liveness).
var ErrEpochEnded = errors.New("the kubelet restarted")

// EpochEnd is ErrEpochEnded (errors.Is says so) with the time of the
// epoch's last event, Noted aside: a composition root that leaves kinds
// out (KindFilter) finishes an ended epoch with it, so an oracle that
// reads only some kinds still knows when its process died.
type EpochEnd struct{ At time.Duration }

func (EpochEnd) Error() string { return ErrEpochEnded.Error() }

// Is makes EpochEnd an ErrEpochEnded.
func (EpochEnd) Is(target error) bool { return target == ErrEpochEnded }

// Kinds is a set of event kinds (history.EventKind).
type Kinds uint32

// KindsOf is the set of ks.
func KindsOf(ks ...history.EventKind) Kinds {
	var s Kinds
	for _, k := range ks {
		s |= 1 << k
	}
	return s
}

// Has reports whether k is in s.
func (s Kinds) Has(k history.EventKind) bool { return s&(1<<k) != 0 }

// KindFilter is an Oracle that reads only some kinds of event: its Observe
// changes nothing and reports nothing for an event of any other kind, so
// a composition root may leave those out (package run does, for the
// oracles that observe every run; run's TestKindsAreWhatOraclesRead checks
// each against one that sees every event). One thing it may note of every
// event is its time, for an epoch ended by a plain ErrEpochEnded: such a
// root finishes an ended epoch with EpochEnd, which says when.
type KindFilter interface {
	Kinds() Kinds
}

// Resetter is an oracle that can judge another run after its run is over:
// Reset empties it as its constructor made it (its configuration kept),
// keeping its maps and buffers, so a lane of seeds reuses one instead of
// building it afresh (package run's Lane). Nothing of the earlier run may
// reach the next one's verdict.
type Resetter interface {
	Reset()
}
