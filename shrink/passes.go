package shrink

import (
	"slices"
	"time"

	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/run"
)

// The passes of Minimize. Each tries candidates through s.try, which keeps
// a candidate only if it still fails and is smaller; each pass works on
// s.best as it shrinks, so a pass re-reads it after every try.

// removeActions is delta debugging over the plan's actions: remove chunks
// of half the actions, then quarters, … then single actions.
//
// Removing an action shifts every later choice onto a different decision,
// which can lose the failure although the action did not matter; so a
// removal that fails is also tried without the removed pods' fault
// choices, then with the schedule cleared (a cooperative run), then with
// both streams cleared.
func (s *shrinker) removeActions() {
	for size := max(len(s.best.Plan.Actions)/2, 1); size >= 1 && !s.exhausted(); size /= 2 {
		for i := 0; i < len(s.best.Plan.Actions) && !s.exhausted(); {
			cand := s.best.Clone()
			end := min(i+size, len(cand.Plan.Actions))
			cand.Plan.Actions = slices.Delete(cand.Plan.Actions, i, end)
			if !s.try(cand) && !s.tryRealigned(cand) {
				i += size
			}
		}
	}
}

// realignChoices is the longest schedule tryRealigned drops choices of,
// one at a time (a small case's).
const realignChoices = 32

// tryRealigned tries cand without the fault choices of pods it no longer
// has, then (if its schedule is short) with one schedule choice dropped,
// then with its schedule cleared, then with both streams cleared.
func (s *shrinker) tryRealigned(cand run.Case) bool {
	if dropped, ok := cand.WithoutGonePodsFaults(); ok && s.try(dropped) {
		return true
	}
	if len(cand.Schedule) > 0 {
		// The removed action's own decisions are gone from the run: a
		// small schedule realigns by dropping one choice.
		for i := range len(cand.Schedule) {
			if len(cand.Schedule) > realignChoices {
				break
			}
			shifted := cand.Clone()
			shifted.Schedule = slices.Delete(shifted.Schedule, i, i+1)
			if s.try(shifted) {
				return true
			}
		}
		cand.Schedule = nil
		if s.try(cand) {
			return true
		}
	}
	if len(cand.Faults) == 0 {
		return false
	}
	cand.Faults = nil
	return s.try(cand)
}

// simplifyPlan lowers the plan's knobs: fewer clients, then each fault
// rate to zero and a shorter maximum delay.
func (s *shrinker) simplifyPlan() {
	for s.best.Plan.Clients > 1 && !s.exhausted() {
		cand := s.best.Clone()
		cand.Plan.Clients = 1
		if !s.try(cand) {
			cand.Plan.Clients = s.best.Plan.Clients - 1
			if !s.try(cand) {
				break
			}
		}
	}
	rates := []func(*plan.Faults) *int{
		func(f *plan.Faults) *int { return &f.ErrorRate }, func(f *plan.Faults) *int { return &f.SlowRate },
		func(f *plan.Faults) *int { return &f.IgnoreCancel }, func(f *plan.Faults) *int { return &f.TerminalRate },
	}
	for _, rate := range rates {
		if *rate(&s.best.Plan.Faults) != 0 {
			cand := s.best.Clone()
			*rate(&cand.Plan.Faults) = 0
			s.try(cand)
		}
	}
	for s.best.Plan.Faults.MaxDelay > 0 && !s.exhausted() {
		cand := s.best.Clone()
		cand.Plan.Faults.MaxDelay = 0
		if !s.try(cand) {
			cand.Plan.Faults.MaxDelay = (s.best.Plan.Faults.MaxDelay / 2).Truncate(time.Millisecond)
			if cand.Plan.Faults.MaxDelay == 0 || !s.try(cand) {
				break
			}
		}
	}
}

// simplifyActions lowers each action's fields towards their simplest
// value: client 0, no eviction, not static, graces and times towards 0
// (an action's time towards the previous action's, keeping plan order).
func (s *shrinker) simplifyActions() {
	for i := 0; i < len(s.best.Plan.Actions) && !s.exhausted(); i++ {
		for _, edit := range actionEdits {
			for !s.exhausted() {
				cand := s.best.Clone()
				prev := time.Duration(0)
				if i > 0 {
					prev = cand.Plan.Actions[i-1].At
				}
				if !edit(&cand.Plan.Actions[i], prev) || !s.try(cand) {
					break
				}
			}
		}
	}
}

// actionEdits each simplify one field of an action one step, reporting
// false when the field is already as simple as it gets. simplifyActions
// repeats an edit while its result keeps failing.
var actionEdits = []func(a *plan.Action, prev time.Duration) bool{
	func(a *plan.Action, _ time.Duration) bool { return lower(&a.Client) },
	func(a *plan.Action, _ time.Duration) bool { return setFalse(&a.Evict) },
	func(a *plan.Action, _ time.Duration) bool { return setFalse(&a.Static) },
	func(a *plan.Action, _ time.Duration) bool { return lower(&a.Grace) },
	func(a *plan.Action, _ time.Duration) bool { return lower(&a.SpecGrace) },
	func(a *plan.Action, prev time.Duration) bool {
		if a.At <= prev {
			return false
		}
		// Halve the gap to the previous action, in the plans' 500 ms grain;
		// the last step closes it.
		gap := ((a.At - prev) / 2).Truncate(500 * time.Millisecond)
		a.At = prev + gap
		return true
	},
}

// lower moves a positive number halfway to 0 (1 goes to 0). Negative
// values mean "none" (a grace of -1) and are left alone.
func lower[T ~int | ~int64](v *T) bool {
	if *v <= 0 {
		return false
	}
	*v /= 2
	return true
}

func setFalse(b *bool) bool {
	if !*b {
		return false
	}
	*b = false
	return true
}

// shrinkChoices shrinks one stream of choices: cut its tail (past the
// end a replay answers 0), then zero chunks of halving size, largest
// first. Zero is the conservative choice everywhere: keep the running
// goroutine, the oldest waiter, no fault.
func (s *shrinker) shrinkChoices(stream func(*run.Case) *[]int) {
	for size := len(*stream(&s.best)) / 2; size >= 1 && !s.exhausted(); size /= 2 {
		for len(*stream(&s.best)) >= size && !s.exhausted() {
			cand := s.best.Clone()
			xs := stream(&cand)
			*xs = (*xs)[:len(*xs)-size]
			if !s.try(cand) {
				break
			}
		}
	}
	for size := max(len(*stream(&s.best))/2, 1); size >= 1 && !s.exhausted(); size /= 2 {
		for i := 0; i < len(*stream(&s.best)) && !s.exhausted(); i += size {
			cand := s.best.Clone()
			xs := *stream(&cand)
			chunk := xs[i:min(i+size, len(xs))]
			if !slices.ContainsFunc(chunk, func(v int) bool { return v != 0 }) {
				continue
			}
			clear(chunk)
			s.try(cand)
		}
	}
}
