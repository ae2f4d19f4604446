package check

import (
	"fmt"
	"slices"
	"sync"

	"github.com/podsim/podsim/model"
	"github.com/podsim/podsim/model/deviation"
	"github.com/podsim/podsim/model/ops"
)

// Replay checks a totally ordered history: list, operations in the order they
// took effect (client calls at their pod-lock critical section, fires at the
// fire, callbacks at entry and return), as the simulation knows it. It steps
// each part of the history (see Partition) in that order, so no search over
// orders is needed: the cost is linear in the history.
//
// Without WorkerStep markers the hidden worker steps are unknown and Replay
// explores them, stepping closed sets of states (model.Next). A history with at
// least one WorkerStep is replayed in witness mode: the recorder promises a
// marker for every worker critical section (see the package doc), hidden
// steps happen only at the markers, and Replay steps one state per part
// (depth first where a step has two outcomes, see replay_fast.go) with no
// closure at all.
//
// ok ⇒ the history is linearizable (the order is a witness; in witness mode
// also the placement of the hidden steps). !ok only says this order (with
// these markers) is not a linearization; porcupine decides whether another
// one is. failedAt is the index of the first operation no possible state
// admits.
//
// In witness mode Replay first walks the whole history as one part
// (walkWhole): when that passes, so does every part, and the plan is never
// made.
//
// Parts are independent (each steps its own states on its own operations
// and its share of each SyncKnownPods), so Replay walks them one after the
// other rather than the history op by op: the result is the same — the
// first failure in history order, and at a SyncKnownPods that fails in
// several parts the lowest-numbered part's — while one part's states stay
// in the same few arrays from its first operation to its last, and a
// part's walk can step back to a fork.
func Replay(list []ops.Op) (ok bool, failedAt int, reason string) { return ReplayWith(list, 0) }

// ReplayWith is Replay against the model with deviations switched on
// (deviation.Set): every part starts in model.InitialState(dev).
func ReplayWith(list []ops.Op, dev deviation.Set) (ok bool, failedAt int, reason string) {
	kit := replayKits.Get().(*replayKit)
	defer kit.putBack()
	kit.replayer.detours = 3 // witnessFast's steps: 4 per operation, and a few
	kit.replayer.dev = dev
	return kit.replay(list)
}

// replay is Replay with this kit.
func (kit *replayKit) replay(list []ops.Op) (ok bool, failedAt int, reason string) {
	plan, walk, r := &kit.plan, &kit.walk, &kit.replayer
	if r.walkWhole(list, &kit.all) {
		return true, -1, ""
	}
	plan.plan(list)
	walk.build(plan, list)
	r.witness = plan.markers
	failedAt = -1
	for q := range plan.parts {
		if at, why := r.walkPart(plan, walk, list, q, failedAt); at >= 0 {
			failedAt, reason = at, why
		}
	}
	return failedAt < 0, failedAt, reason
}

// walkWhole reports whether list, in witness mode, has a witness path
// unpartitioned: one state for every pod, stepped through every operation
// in order (walkFast's depth-first walk, a SyncKnownPods whole). That is
// the model itself over the whole order, and it is stricter than the
// parts: a record, a static full name's lists and an obligation are one
// part's alone, and what the state holds for all pods only adds
// constraints (an obligation of one pod holds every pod's pod-lock step
// back; one pod's lock step closes every pod's idle-cancel window;
// completion IDs are numbered across pods, as the world and the real
// kubelet number them). So a path it finds projects onto a path of every
// part: true is Replay's ok, without the plan and the parts' lists. false
// decides nothing: Replay walks the parts, which give the verdict, the
// first failure and its reason (TestWholeWalkIsThePartsVerdict). Nearly
// every run of the correct code passes whole.
func (r *replayer) walkWhole(list []ops.Op, all *[]int32) bool {
	if !slices.ContainsFunc(list, func(op ops.Op) bool { return isWorkerStep(op.Input) }) {
		return false // closure mode: the parts' sets
	}
	for i := len(*all); i < len(list); i++ { // all only grows: 0, 1, 2 … as far as the longest list
		*all = append(*all, int32(i))
	}
	r.witness = true
	r.startPart()
	return r.walkFrom(partCursor{ops: (*all)[:len(list)], end: int32(len(list))}, list)
}

// walkPart steps part q through its operations from the initial state:
// its own, and every SyncKnownPods if it owns UIDs, merged in history
// order. It returns the index of the first operation no state admits, with
// the rejection, or -1; it stops before index limit (if ≥ 0): a failure
// there or later does not come first. In witness mode it first looks for a
// witness path depth first (walkFast, the common case), and walks the set
// of states only if there is none.
func (r *replayer) walkPart(plan *partitionPlan, w *partWalk, list []ops.Op, q, limit int) (failedAt int, reason string) {
	if r.witness && r.walkFast(plan, w, list, q, limit) {
		return -1, ""
	}
	return r.walkExact(plan, w, list, q, limit)
}

// walkExact is walkPart stepping the set of every possible state: closed
// sets (model.ClosedSet) without markers, the outcomes of every fork in
// witness mode.
func (r *replayer) walkExact(plan *partitionPlan, w *partWalk, list []ops.Op, q, limit int) (failedAt int, reason string) {
	r.startPart()
	at := r.cursor(w, list, q, limit)
	for {
		i, known, more := at.next()
		if !more {
			return -1, ""
		}
		op := model.PartOp{In: list[i].Input, Out: list[i].Output}
		if known {
			desired, kept := at.shares.next(i)
			op = model.PartOp{Restricted: true, Desired: desired, Kept: kept}
		}
		if err := r.step(0, &op); err != nil {
			return int(i), fmt.Sprintf("op %d %q: %v", i, ops.Describe(list[i].Input, list[i].Output), err)
		}
	}
}

// replayKit is what one Replay call works with. Replay takes one from a
// pool and returns it, so that checking history after history (the oracle,
// the benchmarks) reuses the plan's and the parts' arrays. Nothing in a kit
// is reachable from outside the Replay call that holds it.
type replayKit struct {
	plan     partitionPlan
	walk     partWalk
	replayer replayer
	// all is every operation's index in order (walkWhole's part): 0, 1,
	// 2 … as far as the longest list walked whole, kept from call to call
	// (nothing writes it but walkWhole, which only appends).
	all []int32
}

var replayKits = sync.Pool{New: func() any { return new(replayKit) }}

// putBack returns the kit to the pool, dropping the states it held.
func (k *replayKit) putBack() {
	r := &k.replayer
	for _, states := range r.parts {
		clear(states[:cap(states)])
	}
	clear(r.scratch[:cap(r.scratch)])
	clear(r.forks[:cap(r.forks)])
	r.mem.Reset()
	r.closed, r.spare, r.dev = nil, model.State{}, 0
	replayKits.Put(k)
}

// startPart sets the replayer to walk a part from the initial state. In
// witness mode the part starts in one state that Replay alone holds
// (private: it writes in place and recycles), whose arrays the arena
// lends (it is reset when the kit goes back to the pool, not between
// parts: clearing costs more than the room it saves).
func (r *replayer) startPart() {
	if !r.witness {
		r.closed = append(r.closed[:0], model.InitialClosedSetWith(r.dev))
		return
	}
	r.private = true
	if len(r.parts) != 1 { // the part's states and the scratch swap arrays as they go
		r.parts, r.scratch = [][]model.State{make([]model.State, 1, 4)}, make([]model.State, 0, 4)
	}
	r.parts[0] = r.parts[0][:1]
	r.parts[0][0], r.spare = model.InitialState(r.dev), model.State{}
	r.mem.Start(&r.parts[0][0]) // born here: Replay's alone
}

// newWitnessReplayer is a replayer of its own for parts parts (tests).
func newWitnessReplayer(parts int) replayer {
	var r replayer
	r.startWitness(parts)
	return r
}

// startWitness starts every part in the initial state, held by the
// replayer alone (private: it writes in place and recycles).
func (r *replayer) startWitness(parts int) {
	r.witness, r.private = true, true
	r.room = slices.Grow(r.room[:0], 2*parts)[:2*parts] // a part holds one state, rarely two
	r.parts = slices.Grow(r.parts[:0], parts)[:parts]
	for p := range r.parts {
		r.parts[p] = r.room[2*p : 2*p+1 : 2*p+2]
		r.mem.Start(&r.parts[p][0]) // born here: Replay's alone
	}
}

// replayer holds the states of every part: closed sets (closure mode) or a
// state or two that only Replay holds (witness mode).
type replayer struct {
	// dev are the model deviations every part starts with (ReplayWith).
	dev     deviation.Set
	witness bool
	// private: the states were born here and are never handed out, so a
	// state left alone after a fork owns its arrays again (State.Claim).
	private bool
	closed  []model.ClosedSet
	parts   [][]model.State
	room    []model.State // where parts start (reused)
	scratch []model.State
	// spare receives a fork's second outcome, copied out at once.
	spare model.State
	// forks are the outcomes walkFast keeps aside; detours is how many
	// steps per operation it may take on top of one, stepping back
	// included, before it leaves the part to walkExact.
	forks   []pendingFork
	detours int
	// mem lends the parts' record arrays and lists, reused from one Replay
	// call to the next, so that a long run of checks leaves the garbage
	// collector (and its write barriers) little to do. Nothing lent
	// outlives the Replay call: its states are never handed out.
	mem model.Arena
}

func (r *replayer) step(p int, op *model.PartOp) error {
	if !r.witness {
		return r.closed[p].Advance(op)
	}
	// Witness mode: no closure; the states belong to Replay alone, so each
	// is stepped in place (ApplyOn), and a rejecting one is dropped.
	states := r.parts[p]
	if len(states) == 1 { // the common case: one state, one outcome
		alt, err := op.ApplyOn(&states[0], &r.spare)
		if alt != nil {
			r.parts[p] = distinct(append(states, r.takeSpare()))
		}
		return err
	}
	var errs []error
	r.scratch = r.scratch[:0]
	for i := range states {
		alt, err := op.ApplyOn(&states[i], &r.spare)
		switch {
		case err != nil:
			errs = append(errs, err)
			r.recycle(&states[i])
			continue
		case alt != nil:
			r.scratch = append(r.scratch, states[i], r.takeSpare())
		default:
			r.scratch = append(r.scratch, states[i])
		}
	}
	if len(r.scratch) == 0 {
		return model.Reasons(errs)
	}
	r.parts[p], r.scratch = distinct(r.scratch), states // the old states' slice is the next scratch
	if len(r.parts[p]) == 1 && r.private {
		r.parts[p][0].Claim()
	}
	return nil
}

// takeSpare returns the fork's second outcome written into r.spare; its
// arrays are the returned copy's from now on.
func (r *replayer) takeSpare() model.State {
	alt := r.spare
	r.spare.Release()
	return alt
}

// recycle keeps the records' array of a state being dropped for the next
// fork, if the state owned it: then nothing else can reach it.
func (r *replayer) recycle(dropped *model.State) {
	if r.private {
		r.spare.ReuseRecords(dropped)
	}
}

// distinct drops repeated states (a witness set has a handful at most).
// States not moved are not copied (a State is large).
func distinct(states []model.State) []model.State {
	out := states[:0]
next:
	for i := range states {
		for j := range out {
			if out[j].Equal(states[i]) {
				continue next
			}
		}
		if len(out) == i {
			out = out[:i+1] // already in place
		} else {
			out = append(out, states[i])
		}
	}
	return out
}
