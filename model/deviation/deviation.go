// Package deviation names the switches that turn one fixed rule of the
// reference model (package model) back into the behaviour of upstream
// v1.36.3 (pkg/kubelet/pod_workers.go), one known upstream deviation each
// (docs/upstream-findings.md). The model with no deviation switched on is
// the specification, and is what every checker uses unless told otherwise;
// a checker given a Set (model/check's ReplayWith, PorcupineModelWith)
// accepts exactly the histories that the specification with those rules
// replaced accepts. A model state carries the set it was started with
// (model.InitialState), and the rules read it; states of different sets
// are never compared.
//
// Each switch replaces exactly the rule its comment names and nothing
// else, so a history that needs a switch is a history in which upstream
// took that path. The deviations that are not a rule of the model (GB: an
// orphan the model also cleans up unstarted, but whose containers the
// runtime still runs; GD: a stuck pod, which the model does not judge;
// GE: a second goroutine, which the model has no notion of) are exact
// predicates of the real-kubelet driver instead (realkubelet/explain.go).
package deviation

import (
	"fmt"
	"strings"
)

// Set is a set of deviations switched on; the zero Set is the
// specification.
type Set uint16

// The switchable deviations.
const (
	// G1: UpdatePod's early returns do not close the kill's
	// CompletedCh: a runtime-only update that is not a kill, a create
	// while terminating (restart requested), any update to a finished pod,
	// and a runtime-only kill of a terminated pod. The completion never
	// fires (the model fires it at once, or when the pod terminates).
	G1 Set = 1 << iota
	// G2: the completions waiting on a pod are left open (never fire)
	// when it is cleaned up unstarted (cleanupUnstartedPod), purged as an
	// orphan that never started (removeTerminatedWorker), or forgotten
	// after its runtime-only termination (completeTerminatingRuntimePod).
	G2
	// G3: cleanupUnstartedPod does not acknowledge termination
	// (startedTerminating stays false), so ShouldPodContainersBeTerminating
	// is false while ShouldPodRuntimeBeRemoved is true.
	G3
	// G4: SyncKnownPods' orphan driving (removeTerminatedWorker setting
	// terminatingAt) cancels no sync in progress.
	G4
	// GA: the effective grace is upstream's calculateEffectiveGracePeriod
	// as written: a grace of 0 counts as unset at every comparison (so after
	// DeletionGracePeriodSeconds=0 any kill override wins, even a larger
	// one), and "shortened" (which cancels the sync) means "changed".
	GA
	// GC: worker-driven termination carries no grace. Natural
	// completion (completeSync) records none: the record's grace stays
	// unset, so the next one is computed afresh (a later kill's override
	// may exceed the spec grace, which the model's own choice, the spec's
	// effective grace, forbids: the documented difference M1, model's doc.go "Where
	// docs/spec.md is ambiguous"; and a later shortening cancels nothing,
	// the old grace being "unset"). And an update that did not go through
	// UpdatePod's terminating branch carries no grace (KillPodOptions nil),
	// a replay of the last consumed update carries whatever that one did,
	// and SyncTerminatingPod of such an update gets a nil grace (recorded
	// as 0): the replays of natural completion and of orphan driving.
	GC

	end
)

// All is every switch above.
const All = end - 1

var names = []string{"G1", "G2", "G3", "G4", "GA", "GC"}

// Has reports whether every deviation of x is switched on in d.
func (d Set) Has(x Set) bool { return d&x == x }

// String lists the deviations switched on, "+"-joined ("G1+GC"); "none"
// for the specification.
func (d Set) String() string {
	var on []string
	for i, name := range names {
		if d&(1<<i) != 0 {
			on = append(on, name)
		}
	}
	if len(on) == 0 {
		return "none"
	}
	return strings.Join(on, "+")
}

// Named is the switch of a deviation's name (G1, …, GC); false
// if no switch has that name (GB, GD and GE are not model rules; M1 is a
// consequence of GC's first half).
func Named(name string) (Set, bool) {
	for i, n := range names {
		if n == name {
			return 1 << i, true
		}
	}
	return 0, false
}

// Parse reads a String: "none" or names joined by "+".
func Parse(s string) (Set, error) {
	if s == "none" || s == "" {
		return 0, nil
	}
	var d Set
	for _, name := range strings.Split(s, "+") {
		x, ok := Named(name)
		if !ok {
			return 0, fmt.Errorf("unknown deviation %q (want one of %s)", name, strings.Join(names, ", "))
		}
		d |= x
	}
	return d, nil
}
