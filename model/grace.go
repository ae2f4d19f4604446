package model

import (
	"github.com/podsim/podsim/model/deviation"
	"github.com/podsim/podsim/model/ops"
)

// effectiveGrace is SPEC §1.7 (calculateEffectiveGracePeriod) for a pod.
func effectiveGrace(current int64, pod ops.Pod, kill ops.KillOptions) (grace int64, shortened bool) {
	return effectiveGraceOf(current, contentOf(&pod), kill)
}

// effectiveGraceOf is effectiveGrace on what a record keeps of a pod: start
// from the record's grace (0 = unset), let the API server's DeletionGracePeriodSeconds
// and then the kill's override lower it, fall back to the spec grace only if
// nothing overrode, clamp to ≥1. An explicit 0 therefore yields 1, never the
// spec value (#115819), and the result never exceeds a set current value.
// shortened is true iff a set grace changed (which cancels the sync, §1.15).
func effectiveGraceOf(current int64, pod PodContent, kill ops.KillOptions) (grace int64, shortened bool) {
	// "set" tells an explicit 0 (force delete) from "no value yet": SPEC
	// §1.7's steps read literally (and upstream v1.36.3) test grace == 0 in
	// the override step, so a kill's override after a force delete would
	// lengthen the grace and cancel the kill in flight, against §1.7's own
	// "never increases" and S11.
	grace = current
	set := current != 0
	if pod.HasDeletionGrace && (!set || pod.DeletionGrace < grace) {
		grace, set = pod.DeletionGrace, true
	}
	if kill.HasGraceOverride && (!set || kill.GraceOverride < grace) {
		grace, set = kill.GraceOverride, true
	}
	if !set {
		grace = pod.SpecGrace
	}
	if grace < 1 {
		grace = 1
	}
	return grace, current != 0 && grace < current
}

// upstreamGrace is calculateEffectiveGracePeriod of v1.36.3 as written
// (deviation.GA): 0 is "unset" at each comparison, and any change is
// reported.
func upstreamGrace(current int64, pod PodContent, kill ops.KillOptions) (grace int64, changed bool) {
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
// (effectiveGraceOf), or upstream's formula with deviation.GA.
func (s *State) graceOf(current int64, pod PodContent, kill ops.KillOptions) (int64, bool) {
	if s.dev.Has(deviation.GA) {
		return upstreamGrace(current, pod, kill)
	}
	return effectiveGraceOf(current, pod, kill)
}
