package model

// effectiveGrace is SPEC §1.7 (calculateEffectiveGracePeriod): start from the
// record's grace (0 = unset), let the API server's DeletionGracePeriodSeconds
// and then the kill's override lower it, fall back to the spec grace only if
// nothing overrode, clamp to ≥1. An explicit 0 therefore yields 1, never the
// spec value (#115819), and the result never exceeds a set current value.
// shortened is true iff a set grace changed (which cancels the sync, §1.15).
func effectiveGrace(current int64, pod Pod, kill KillOptions) (grace int64, shortened bool) {
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
