package model

import (
	"errors"
	"slices"
	"strings"

	"github.com/podsim/podsim/model/ops"
)

// Step applies one observed operation to state s and returns every state the
// object can be in right after it — one, except for a first-seen
// terminal-phase pod with CacheUnknown — or an error saying why the observation
// is illegal in s. It does not apply hidden worker steps: Next and the
// porcupine model do (Closure). s is not modified.
func Step(s State, in ops.Input, out ops.Output) ([]State, error) {
	next, err := step(nil, s.clone(), in, out)
	if err != nil {
		return nil, err
	}
	for i := range next {
		next[i].publish()
		next[i] = next[i].withViewsOf(&s)
	}
	return next, nil
}

// step is Step on a private copy of the state: it appends the next states to
// dst (on error, dst is returned as it was).
func step(dst []State, s State, in ops.Input, out ops.Output) ([]State, error) {
	var spare State
	alt, err := stepOn(&s, &spare, in, out)
	if err != nil {
		return dst, err
	}
	return appendOutcomes(dst, &s, alt), nil
}

// appendOutcomes appends a step's outcome s, and its second outcome alt if
// the step forked, to dst.
func appendOutcomes(dst []State, s, alt *State) []State {
	dst = append(dst, *s)
	if alt != nil {
		dst = append(dst, *alt)
	}
	return dst
}

// stepOn is the step itself, applied to s in place: s becomes the next
// state, or the first of two (alt, nil if there is one; when there is, it
// is spare, which the caller provides so that a fork allocates no State).
// On error s is garbage.
// Replay's witness mode calls it directly on the states it alone holds.
//
// The operations under the pod lock (underLock) enter it first, in their
// own case: one type switch a step, not a second one to ask underLock.
func stepOn(s, spare *State, in ops.Input, out ops.Output) (alt *State, err error) {
	switch in := in.(type) {
	case ops.UpdatePod:
		if err := s.enterLock(); err != nil {
			return nil, err
		}
		return stepUpdatePod(s, spare, &in), nil
	case ops.WorkerStep:
		if err := s.enterLock(); err != nil {
			return nil, err
		}
		return stepWorkerStep(s, spare, in)
	case ops.SyncKnownPods:
		if err := s.enterLock(); err != nil {
			return nil, err
		}
		got, ok := out.(ops.KnownPods)
		if !ok && out != nil {
			return nil, rejectf("SyncKnownPods needs a KnownPods output, got %T", out)
		}
		err = stepSyncKnownPods(s, in, got)
	case ops.Query:
		if err := s.enterLock(); err != nil {
			return nil, err
		}
		got, ok := out.(ops.Answer)
		if !ok {
			return nil, rejectf("%s needs an Answer output, got %T", in.Kind, out)
		}
		err = stepQuery(s, in, got)
	case ops.KillPodNowDone:
		got, ok := out.(ops.Answer)
		if !ok {
			return nil, rejectf("KillPodNowDone needs an Answer output, got %T", out)
		}
		err = stepKillPodNowDone(s, in, got)
	case ops.CompletionFired:
		err = stepCompletionFired(s, in)
	case ops.CancelFired:
		err = stepCancelFired(s, in)
	case ops.SyncBegin:
		err = stepSyncBegin(s, in)
	case ops.SyncEnd:
		err = stepSyncEnd(s, in)
	case ops.StatusReadFailed:
		err = stepStatusReadFailed(s, in)
	default:
		err = rejectf("unknown operation %T", in)
	}
	return nil, err
}

// enterLock begins every step under the pod lock: no obligation may be
// pending, and the window for cancelling an idle context closes.
func (s *State) enterLock() error {
	if len(s.Due) > 0 {
		return rejectf("%s must happen first (fired inside the critical section that caused it)", dueText(s.Due[0]))
	}
	s.MayCancel = s.MayCancel[:0]
	if s.own&ownMayCancel == 0 {
		s.MayCancel = nil // shared: the next write copies anyway
	}
	return nil
}

// underLock reports operations that take the pod lock. Callback entry and
// return, and killPodNow's wait, do not: they may interleave with the
// discharge of an obligation. (stepOn enters the lock in the cases of
// these kinds; TestStepOnEntersTheLockOfUnderLock checks they agree.)
func underLock(in ops.Input) bool {
	switch in.(type) {
	case ops.UpdatePod, ops.SyncKnownPods, ops.Query, ops.WorkerStep:
		return true
	}
	return false
}

// Closure adds to states every state reachable by hidden worker steps
// (take, ack, complete; see worker.go), without duplicates: states
// first, then breadth-first.
//
// Why a set of states: the recorder sees a worker only when it enters or
// leaves a callback, so when it took the pending update, acknowledged
// termination or applied an outcome is genuinely unknown — and it matters
// (an update arriving just before or after the take is delivered now or
// next time). Keeping every possibility is exact; a lazier deterministic
// encoding would have to guess which later observation forces which order.
func Closure(states []State) []State {
	return statesOf(closure(nodesOf(forget(states)), nil))
}

// Next steps every state of a closed set and closes the result. If no state
// admits the operation, the error lists why, once per distinct reason.
func Next(states []State, in ops.Input, out ops.Output) ([]State, error) {
	var seeds []State
	var errs []error
	for _, s := range forget(states) {
		var err error
		if seeds, err = step(seeds, s, in, out); err != nil {
			errs = append(errs, err)
		}
	}
	if len(seeds) == 0 {
		return nil, reasons(errs)
	}
	return statesOf(closure(nodesOf(seeds), nil)), nil
}

// forget returns private copies of states that a caller handed in: what
// closure learned about them is dropped, in case the caller edited them.
func forget(states []State) []State {
	out := make([]State, len(states))
	for i, s := range states {
		out[i] = s.clone()
	}
	return out
}

// reasons joins the distinct messages of rejections, in order.
func reasons(errs []error) error {
	var msgs []string
	for _, err := range errs {
		if msg := err.Error(); !slices.Contains(msgs, msg) {
			msgs = append(msgs, msg)
		}
	}
	if len(msgs) == 0 {
		return errors.New("no possible state")
	}
	return errors.New(strings.Join(msgs, "; or "))
}

// dueText renders an obligation only when a rejection is read.
type dueText Obligation

func (o dueText) String() string { return describeDue(Obligation(o)) }
