package model

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Step applies one observed operation to state s and returns every state the
// object can be in right after it — one, except for a first-seen
// terminal-phase pod with CacheUnknown — or an error saying why the
// observation is illegal in s. It does not apply hidden worker steps: Next
// and the porcupine model do (Closure). s is not modified.
func Step(s State, in Input, out Output) ([]State, error) {
	s = s.clone()
	if underLock(in) {
		if len(s.Due) > 0 {
			return nil, fmt.Errorf("%s must happen first (fired inside the critical section that caused it)", describeDue(s.Due[0]))
		}
		s.MayCancel = nil
	}
	var err error
	switch in := in.(type) {
	case UpdatePod:
		return stepUpdatePod(s, in), nil
	case SyncKnownPods:
		got, ok := out.(KnownPods)
		if !ok && out != nil {
			return nil, fmt.Errorf("SyncKnownPods needs a KnownPods output, got %T", out)
		}
		err = stepSyncKnownPods(&s, in, got)
	case Query:
		got, ok := out.(Answer)
		if !ok {
			return nil, fmt.Errorf("%s needs an Answer output, got %T", in.Kind, out)
		}
		err = stepQuery(&s, in, got)
	case KillPodNowDone:
		got, ok := out.(Answer)
		if !ok {
			return nil, fmt.Errorf("KillPodNowDone needs an Answer output, got %T", out)
		}
		err = stepKillPodNowDone(&s, in, got)
	case CompletionFired:
		err = stepCompletionFired(&s, in)
	case CancelFired:
		err = stepCancelFired(&s, in)
	case SyncBegin:
		err = stepSyncBegin(&s, in)
	case SyncEnd:
		err = stepSyncEnd(&s, in)
	default:
		err = fmt.Errorf("unknown operation %T", in)
	}
	if err != nil {
		return nil, err
	}
	return []State{s}, nil
}

// underLock reports operations that take the pod lock. Callback entry and
// return, and killPodNow's wait, do not: they may interleave with the
// discharge of an obligation.
func underLock(in Input) bool {
	switch in.(type) {
	case UpdatePod, SyncKnownPods, Query:
		return true
	}
	return false
}

// Closure adds to states every state reachable by hidden worker steps
// (take, abort, ack, complete; see worker.go), without duplicates.
//
// Why a set of states: the recorder sees a worker only when it enters or
// leaves a callback, so when it took the pending update, acknowledged
// termination or applied an outcome is genuinely unknown — and it matters
// (an update arriving just before or after the take is delivered now or
// next time). Keeping every possibility is exact; a lazier deterministic
// encoding would have to guess which later observation forces which order.
func Closure(states []State) []State {
	var set stateSet
	for _, s := range states {
		set.add(s)
	}
	for i := 0; i < len(set.states); i++ {
		for _, n := range hiddenSteps(set.states[i]) {
			set.add(n)
		}
	}
	return set.states
}

// stateSet is a list of distinct states, indexed by Hash.
type stateSet struct {
	states []State
	byHash map[uint64][]int
}

func (set *stateSet) add(s State) {
	if set.byHash == nil {
		set.byHash = map[uint64][]int{}
	}
	h := s.Hash()
	for _, i := range set.byHash[h] {
		if set.states[i].Equal(s) {
			return
		}
	}
	set.byHash[h] = append(set.byHash[h], len(set.states))
	set.states = append(set.states, s)
}

// Next steps every state of a closed set and closes the result. If no state
// admits the operation, the error lists why, once per distinct reason.
func Next(states []State, in Input, out Output) ([]State, error) {
	var next []State
	var reasons []string
	for _, s := range states {
		n, err := Step(s, in, out)
		if err != nil {
			if !slices.Contains(reasons, err.Error()) {
				reasons = append(reasons, err.Error())
			}
			continue
		}
		next = append(next, n...)
	}
	if len(next) == 0 {
		if len(reasons) == 0 {
			return nil, errors.New("no possible state")
		}
		return nil, errors.New(strings.Join(reasons, "; or "))
	}
	return Closure(next), nil
}
