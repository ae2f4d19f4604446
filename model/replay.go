package model

import (
	"fmt"
	"slices"
	"sync"
)

// Replay checks a totally ordered history: ops in the order in which they
// took effect (client calls at their pod-lock critical section, fires at the
// fire, callbacks at entry and return), as the simulation knows it. It steps
// each part of the history (see Partition) in that order, so no search over
// orders is needed: the cost is linear in the history.
//
// Without WorkerStep markers the hidden worker steps are unknown and Replay
// explores them, stepping closed sets of states (Next). A history with at
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
// Parts are independent (each steps its own states on its own operations
// and its share of each SyncKnownPods), so Replay walks them one after the
// other rather than the history op by op: the result is the same — the
// first failure in history order, and at a SyncKnownPods that fails in
// several parts the lowest-numbered part's — while one part's states stay
// in the same few arrays from its first operation to its last, and a
// part's walk can step back to a fork.
func Replay(ops []Op) (ok bool, failedAt int, reason string) {
	kit := replayKits.Get().(*replayKit)
	defer kit.putBack()
	kit.replayer.detours = 3 // witnessFast's steps: 4 per operation, and a few
	return kit.replay(ops)
}

// replay is Replay with this kit.
func (kit *replayKit) replay(ops []Op) (ok bool, failedAt int, reason string) {
	plan, walk, r := &kit.plan, &kit.walk, &kit.replayer
	plan.plan(ops)
	walk.build(plan, ops)
	r.witness = plan.markers
	failedAt = -1
	for q := range plan.parts {
		if at, why := r.walkPart(plan, walk, ops, q, failedAt); at >= 0 {
			failedAt, reason = at, why
		}
	}
	return failedAt < 0, failedAt, reason
}

// walkPart steps part q through its operations from the initial state:
// its own, and every SyncKnownPods if it owns UIDs, merged in history
// order. It returns the index of the first operation no state admits, with
// the rejection, or -1; it stops before index limit (if ≥ 0): a failure
// there or later does not come first. In witness mode it first looks for a
// witness path depth first (walkFast, the common case), and walks the set
// of states only if there is none.
func (r *replayer) walkPart(plan *partitionPlan, w *partWalk, ops []Op, q, limit int) (failedAt int, reason string) {
	if r.witness && r.walkFast(plan, w, ops, q, limit) {
		return -1, ""
	}
	return r.walkExact(plan, w, ops, q, limit)
}

// walkExact is walkPart stepping the set of every possible state: closed
// sets (Next) without markers, the outcomes of every fork in witness mode.
func (r *replayer) walkExact(plan *partitionPlan, w *partWalk, ops []Op, q, limit int) (failedAt int, reason string) {
	r.startPart()
	at := r.cursor(w, ops, q, limit)
	for {
		i, known, more := at.next()
		if !more {
			return -1, ""
		}
		op := partOp{in: ops[i].Input, out: ops[i].Output}
		if known {
			desired, kept := at.shares.next(i)
			op = partOp{restricted: true, desired: desired, kept: kept}
		}
		if err := r.step(0, &op); err != nil {
			return int(i), fmt.Sprintf("op %d %q: %v", i, Describe(ops[i].Input, ops[i].Output), err)
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
	r.arena.reset()
	r.lists.reset()
	r.closed, r.spare = nil, State{}
	replayKits.Put(k)
}

// startPart sets the replayer to walk a part from the initial state. In
// witness mode the part starts in one state that Replay alone holds
// (private: it writes in place and recycles), whose arrays the arena and
// slabs lend (they are reset when the kit goes back to the pool, not
// between parts: clearing costs more than the room it saves).
func (r *replayer) startPart() {
	if !r.witness {
		r.closed = append(r.closed[:0], initialSet())
		return
	}
	r.private = true
	if len(r.parts) != 1 { // the part's states and the scratch swap arrays as they go
		r.parts, r.scratch = [][]State{make([]State, 1, 4)}, make([]State, 0, 4)
	}
	r.parts[0] = r.parts[0][:1]
	r.parts[0][0], r.spare = State{}, State{}
	start := &r.parts[0][0]
	start.arena = &r.arena // copies of its records (forks) are lent too
	start.recs = r.arena.alloc(0, recordsPerPart)
	r.lists.lend(start)
	start.claim() // born here: Replay's alone
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
		start := &r.parts[p][0]
		start.arena = &r.arena // copies of its records (forks) are lent too
		start.recs = r.arena.alloc(0, recordsPerPart)
		r.lists.lend(start)
		start.claim() // born here: Replay's alone
	}
}

// recordsPerPart is the room a part's first records array is lent: a part
// holds one UID, or the few UIDs of one static full name.
const recordsPerPart = 4

// partOp is an operation as one part sees it. Replay keeps a SyncKnownPods
// restricted to the part unboxed (it splits one per part per call).
type partOp struct {
	in         Input
	out        Output
	restricted bool
	desired    []string
	kept       KnownPods
}

// apply is step for this operation.
func (o *partOp) apply(dst []State, s State) ([]State, error) {
	var spare State
	alt, err := o.applyOn(&s, &spare)
	if err != nil {
		return dst, err
	}
	return appendOutcomes(dst, &s, alt), nil
}

// applyOn is stepOn for this operation: s in place, alt (spare) a second
// outcome.
func (o *partOp) applyOn(s, spare *State) (alt *State, err error) {
	if !o.restricted {
		return stepOn(s, spare, o.in, o.out)
	}
	if err := s.enterLock(); err != nil {
		return nil, err
	}
	return nil, stepSyncKnownPods(s, SyncKnownPods{Desired: o.desired}, o.kept)
}

// replayer holds the states of every part: closed sets (closure mode) or a
// state or two that only Replay holds (witness mode).
type replayer struct {
	witness bool
	// private: the states were born here and are never handed out, so a
	// state left alone after a fork owns its arrays again (State.claim).
	private bool
	closed  [][]*node
	parts   [][]State
	room    []State // where parts start (reused)
	scratch []State
	// spare receives a fork's second outcome, copied out at once.
	spare State
	// forks are the outcomes walkFast keeps aside; detours is how many
	// steps per operation it may take on top of one, stepping back
	// included, before it leaves the part to walkExact.
	forks   []pendingFork
	detours int
	// arena lends the parts' record arrays, reused from one Replay call to
	// the next, so that a long run of checks leaves the garbage collector
	// (and its write barriers) little to do. Nothing lent outlives the
	// Replay call: its states are never handed out.
	arena recordArena
	lists partLists
}

// partLists lends each part's first state room for its small lists, reused
// from one Replay call to the next like the records (arena): a state born
// with empty lists would allocate each one as it first grows.
type partLists struct {
	due       slab[Obligation]
	mayCancel slab[string] // and wait lists (detach)
	fired     slab[int]
	notify    slab[notifyEntry]
	started   slab[StaticStarted]
	waiting   slab[StaticWaiting]
}

func (l *partLists) lend(s *State) {
	s.Due, s.MayCancel, s.Fired, s.notify = l.due.take(2), l.mayCancel.take(2), l.fired.take(4), l.notify.take(2)
}

func (l *partLists) reset() {
	l.due.reset()
	l.mayCancel.reset()
	l.fired.reset()
	l.notify.reset()
	l.started.reset()
	l.waiting.reset()
}

// slab lends small empty slices with room from one reused array; a slice
// that outgrows its room moves to the heap, as append does.
type slab[T any] struct {
	buf  []T
	used int
}

func (b *slab[T]) take(room int) []T {
	if len(b.buf)-b.used < room {
		b.buf, b.used = make([]T, max(256, 2*len(b.buf), room)), 0
	}
	lent := b.buf[b.used : b.used : b.used+room]
	b.used += room
	return lent
}

// reset drops what was lent (and what it refers to) for reuse.
func (b *slab[T]) reset() {
	clear(b.buf[:b.used])
	b.used = 0
}

func (r *replayer) step(p int, op *partOp) error {
	if !r.witness {
		next, errs := nextClosed(r.closed[p], op)
		if next == nil {
			return reasons(errs)
		}
		r.closed[p] = next
		return nil
	}
	// Witness mode: no closure; the states belong to Replay alone, so each
	// is stepped in place (stepOn), and a rejecting one is dropped.
	states := r.parts[p]
	if len(states) == 1 { // the common case: one state, one outcome
		alt, err := op.applyOn(&states[0], &r.spare)
		if alt != nil {
			r.parts[p] = distinct(append(states, r.takeSpare()))
		}
		return err
	}
	var errs []error
	r.scratch = r.scratch[:0]
	for i := range states {
		alt, err := op.applyOn(&states[i], &r.spare)
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
		return reasons(errs)
	}
	r.parts[p], r.scratch = distinct(r.scratch), states // the old states' slice is the next scratch
	if len(r.parts[p]) == 1 && r.private {
		r.parts[p][0].claim()
	}
	return nil
}

// takeSpare returns the fork's second outcome written into r.spare; its
// arrays are the returned copy's from now on.
func (r *replayer) takeSpare() State {
	alt := r.spare
	r.spare.own, r.spare.recs = 0, nil
	return alt
}

// recycle keeps the records' array of a state being dropped for the next
// fork (forkInto), if the state owned it: then nothing else can reach it.
func (r *replayer) recycle(dropped *State) {
	if r.private && dropped.own&ownRecs != 0 {
		r.spare.recs, r.spare.own = dropped.recs, ownRecs
	}
}

// distinct drops repeated states (a witness set has a handful at most).
// States not moved are not copied (a State is large).
func distinct(states []State) []State {
	out := states[:0]
next:
	for i := range states {
		for j := range out {
			if out[j].equal(&states[i]) {
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
