package model

import (
	"fmt"
	"strings"
)

// Deviations are named switches that turn one fixed rule of this model
// back into the behaviour of upstream v1.36.3 (pkg/kubelet/pod_workers.go),
// one known upstream deviation each (docs/upstream-findings.md). The model
// with no deviation switched on is the specification, and is what every
// checker uses unless told otherwise; a checker given a set of deviations
// (model/check's ReplayWith, PorcupineModelWith) accepts exactly the
// histories that the specification with those rules replaced accepts. A
// state carries the set it was started with (InitialState), and the rules
// read it; states of different sets are never compared.
//
// Each switch replaces exactly the rule its comment names and nothing
// else, so a history that needs a switch is a history in which upstream
// took that path. The deviations that are not a rule of the model (GB: an
// orphan the model also cleans up unstarted, but whose containers the
// runtime still runs; GD: a stuck pod, which the model does not judge;
// GE: a second goroutine, which the model has no notion of) are exact
// predicates of the real-kubelet driver instead (realkubelet/explain.go).
type Deviations uint16

// The switchable deviations.
const (
	// DevG1: UpdatePod's early returns do not close the kill's
	// CompletedCh: a runtime-only update that is not a kill, a create
	// while terminating (restart requested), any update to a finished pod,
	// and a runtime-only kill of a terminated pod. The completion never
	// fires (the model fires it at once, or when the pod terminates).
	DevG1 Deviations = 1 << iota
	// DevG2: the completions waiting on a pod are left open (never fire)
	// when it is cleaned up unstarted (cleanupUnstartedPod), purged as an
	// orphan that never started (removeTerminatedWorker), or forgotten
	// after its runtime-only termination (completeTerminatingRuntimePod).
	DevG2
	// DevG3: cleanupUnstartedPod does not acknowledge termination
	// (startedTerminating stays false), so ShouldPodContainersBeTerminating
	// is false while ShouldPodRuntimeBeRemoved is true.
	DevG3
	// DevG4: SyncKnownPods' orphan driving (removeTerminatedWorker setting
	// terminatingAt) cancels no sync in progress.
	DevG4
	// DevGA: the effective grace is upstream's calculateEffectiveGracePeriod
	// as written: a grace of 0 counts as unset at every comparison (so after
	// DeletionGracePeriodSeconds=0 any kill override wins, even a larger
	// one), and "shortened" (which cancels the sync) means "changed".
	DevGA
	// DevGC: worker-driven termination carries no grace. Natural
	// completion (completeSync) records none: the record's grace stays
	// unset, so the next one is computed afresh (a later kill's override
	// may exceed the spec grace, which the model's own choice, the spec's
	// effective grace, forbids: the documented difference M1, doc.go "Where
	// docs/spec.md is ambiguous"; and a later shortening cancels nothing,
	// the old grace being "unset"). And an update that did not go through
	// UpdatePod's terminating branch carries no grace (KillPodOptions nil),
	// a replay of the last consumed update carries whatever that one did,
	// and SyncTerminatingPod of such an update gets a nil grace (recorded
	// as 0): the replays of natural completion and of orphan driving.
	DevGC

	devEnd
)

// AllDeviations is every switch above.
const AllDeviations = devEnd - 1

var deviationNames = []string{"G1", "G2", "G3", "G4", "GA", "GC"}

// Has reports whether every deviation of x is switched on in d.
func (d Deviations) Has(x Deviations) bool { return d&x == x }

// String lists the deviations switched on, "+"-joined ("G1+GC"); "none"
// for the specification.
func (d Deviations) String() string {
	var names []string
	for i, name := range deviationNames {
		if d&(1<<i) != 0 {
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, "+")
}

// DeviationNamed is the switch of a deviation's name (G1, …, GC); false
// if no switch has that name (GB, GD and GE are not model rules; M1 is a
// consequence of GC's first half).
func DeviationNamed(name string) (Deviations, bool) {
	for i, n := range deviationNames {
		if n == name {
			return 1 << i, true
		}
	}
	return 0, false
}

// ParseDeviations reads a String: "none" or names joined by "+".
func ParseDeviations(s string) (Deviations, error) {
	if s == "none" || s == "" {
		return 0, nil
	}
	var d Deviations
	for _, name := range strings.Split(s, "+") {
		x, ok := DeviationNamed(name)
		if !ok {
			return 0, fmt.Errorf("unknown deviation %q (want one of %s)", name, strings.Join(deviationNames, ", "))
		}
		d |= x
	}
	return d, nil
}

// InitialState is the object right after kubelet start, with deviations
// switched on (for the checker: the first state of every part).
func InitialState(dev Deviations) State { return State{dev: dev} }

// NewStateWith is NewState with deviations switched on.
func NewStateWith(dev Deviations) State { return InitialState(dev).withViews() }

// InitialClosedSetWith is InitialClosedSet with deviations switched on.
func InitialClosedSetWith(dev Deviations) ClosedSet {
	nodes := closure([]*node{newNode(InitialState(dev))}, nil)
	return ClosedSet{nodes: nodes, hash: setHash(nodes)}
}

// Deviations is the set the state was started with.
func (s *State) Deviations() Deviations { return s.dev }

// upstreamGrace is calculateEffectiveGracePeriod of v1.36.3 as written
// (DevGA): 0 is "unset" at each comparison, and any change is reported.
func upstreamGrace(current int64, pod PodContent, kill KillOptions) (grace int64, changed bool) {
	grace = current
	overridden := false
	if pod.HasDeletionGrace && (grace == 0 || pod.DeletionGrace < grace) {
		grace, overridden = pod.DeletionGrace, true
	}
	if kill.HasGraceOverride && (grace == 0 || kill.GraceOverride < grace) {
		grace, overridden = kill.GraceOverride, true
	}
	if !overridden && grace == 0 {
		grace = pod.SpecGrace
	}
	if grace < 1 {
		grace = 1
	}
	return grace, current != 0 && current != grace
}

// graceOf is the effective grace under s's deviations: SPEC §1.7
// (effectiveGraceOf), or upstream's formula with DevGA.
func (s *State) graceOf(current int64, pod PodContent, kill KillOptions) (int64, bool) {
	if s.dev.Has(DevGA) {
		return upstreamGrace(current, pod, kill)
	}
	return effectiveGraceOf(current, pod, kill)
}
