package check

import (
	"github.com/podsim/podsim/model"
	"github.com/podsim/podsim/model/ops"
)

// Witness mode, depth first. A part's walk in witness mode steps one state;
// where an operation has two outcomes (a fork: a terminal pod first seen
// with an unknown cache; until issue 17 also abort or acknowledge after a
// terminating take, now pinned by the recorded failed read) it goes
// on with the first and keeps the second aside, with its position in the
// part's operations, to resume from if the path taken is rejected later. So
// a part holds one state at every step instead of stepping both outcomes
// until one is rejected (usually a few operations later); which outcome
// goes first is guessed from the part's next worker operation (ackLikely),
// so the walk rarely steps back. The verdict is the same as walking the
// set of all outcomes (walkExact): some path survives every operation iff
// the set is never empty. Only the verdict: when no path survives, or the
// search runs long (forks whose outcomes are never told apart would
// multiply paths), Replay walks the part again with the set, which gives
// the first failure and its reasons.
//
// The outcome kept aside is given copies of the lists it shares with the
// other (model.Arena.Detach), so that both own every array they hold and
// write in place: the path taken never writes into the one kept aside.

// partCursor is a position in a part's operations, their shares of the
// SyncKnownPods, and the index before which the walk stops.
type partCursor struct {
	ops    []int32 // a SyncKnownPods i as ^i (partWalk)
	at     int
	shares partShares
	end    int32
}

// next pops the next operation's index; known reports a SyncKnownPods;
// more is false at the end (or at end).
func (c *partCursor) next() (i int32, known, more bool) {
	if c.at == len(c.ops) {
		return 0, false, false
	}
	i = c.ops[c.at]
	c.at++
	if i < 0 {
		i, known = ^i, true
	}
	return i, known, i < c.end
}

func (r *replayer) cursor(w *partWalk, list []ops.Op, q, limit int) partCursor {
	c := partCursor{ops: w.ops[w.opsAt[q]:w.opsAt[q+1]], shares: w.shares(q), end: int32(len(list))}
	if limit >= 0 {
		c.end = int32(limit)
	}
	return c
}

// pendingFork is an outcome kept aside: the state (which shares no array
// with any other) and where its walk resumes.
type pendingFork struct {
	state model.State
	at    partCursor
}

// walkFast reports whether part q's operations before limit have a
// witness path (see above). false is not a verdict: walkExact decides.
func (r *replayer) walkFast(plan *partitionPlan, w *partWalk, list []ops.Op, q, limit int) bool {
	r.startPart()
	return r.walkFrom(r.cursor(w, list, q, limit), list)
}

// walkFrom is walkFast from at, the part's state just started.
func (r *replayer) walkFrom(at partCursor, list []ops.Op) bool {
	budget := (1+r.detours)*len(at.ops) + 64 // steps, stepping back included
	r.forks = r.forks[:0]
	s := &r.parts[0][0]
	for ; budget > 0; budget-- {
		i, known, more := at.next()
		if !more {
			return true
		}
		var alt *model.State
		var err error
		if known {
			err = stepKnownShare(s, &at.shares, i)
		} else {
			alt, err = model.StepOn(s, &r.spare, list[i].Input, list[i].Output)
		}
		if (err != nil || alt != nil) && !r.fork(s, &at, list, err) {
			return false
		}
	}
	return false
}

// stepKnownShare steps s through its share of SyncKnownPods i.
func stepKnownShare(s *model.State, shares *partShares, i int32) error {
	desired, kept := shares.next(i)
	op := model.PartOp{Restricted: true, Desired: desired, Kept: kept}
	_, err := op.ApplyOn(s, nil)
	return err
}

// fork handles the step of walkFast that did not leave one state: a
// rejection resumes the last outcome kept aside (false if there is none),
// two outcomes keep one aside.
func (r *replayer) fork(s *model.State, at *partCursor, list []ops.Op, err error) bool {
	switch {
	case err != nil && len(r.forks) == 0:
		return false
	case err != nil: // this path is rejected: resume the last outcome kept aside
		last := len(r.forks) - 1
		*s, *at = r.forks[last].state, r.forks[last].at
		r.forks[last] = pendingFork{}
		r.forks = r.forks[:last]
	default:
		// The outcome kept aside goes straight into its place (a State is
		// large: it is not passed around by value).
		r.forks = append(r.forks, pendingFork{at: *at})
		aside := &r.forks[len(r.forks)-1].state
		if ackLikely(at, list) { // go on with the second outcome
			*aside, *s = *s, r.spare
		} else {
			*aside = r.spare
		}
		r.spare.Release() // its arrays are the outcome's now (takeSpare)
		r.mem.Detach(aside)
		s.Claim() // it shares nothing with the outcome kept aside any more
	}
	return true
}

// ackLikely: of the part's next worker operations (a callback entry or a
// marker, within a few operations), the first enters a callback. Where a
// step forks, this tells which outcome to try first (it was written for
// the abort-or-acknowledge fork after a take, which a recorded failed
// status read now decides). Only an order: both outcomes are tried if need
// be.
func ackLikely(at *partCursor, list []ops.Op) bool {
	for _, i := range at.ops[at.at:min(at.at+8, len(at.ops))] {
		if i < 0 {
			continue
		}
		switch list[i].Input.(type) {
		case ops.SyncBegin:
			return true
		case ops.WorkerStep:
			return false
		}
	}
	return false
}
