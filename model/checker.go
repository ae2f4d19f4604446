package model

import (
	"strings"

	"github.com/podsim/podsim/model/deviation"
	"github.com/podsim/podsim/model/ops"
)

// The checker's handle on the model (mechanics, not rules). Package
// model/check partitions histories, replays them and adapts the model to
// porcupine; it steps States in place and reuses their memory, which needs
// the copy-on-write layer of storage.go. Rather than move that layer out of
// the package that defines State, the few operations the checker needs are
// exported here, each documented as being for the checker. A reader of the
// specification can skip this file, arena.go, closure.go and storage.go.

// PartOp is an operation as one part of a partitioned history sees it (for
// the checker): In and Out, or, if Restricted, a SyncKnownPods restricted
// to the part, kept unboxed (Desired, Kept): the checker splits one per
// part per history.
type PartOp struct {
	In         ops.Input
	Out        ops.Output
	Restricted bool
	Desired    []string
	Kept       ops.KnownPods
}

// Apply is Step for this operation on s, which the caller hands over (a
// private copy: see State.Clone): it appends the next states to dst (on
// error, dst is returned as it was).
func (o *PartOp) Apply(dst []State, s State) ([]State, error) {
	var spare State
	alt, err := o.ApplyOn(&s, &spare)
	if err != nil {
		return dst, err
	}
	return appendOutcomes(dst, &s, alt), nil
}

// ApplyOn is the step applied to s in place (for the checker's states,
// which only it holds): s becomes the next state, or the first of two; the
// second, if any, is written into spare and returned as alt. On error s is
// garbage.
func (o *PartOp) ApplyOn(s, spare *State) (alt *State, err error) {
	if !o.Restricted {
		return stepOn(s, spare, o.In, o.Out)
	}
	if err := s.enterLock(); err != nil {
		return nil, err
	}
	return nil, stepSyncKnownPods(s, ops.SyncKnownPods{Desired: o.Desired}, o.Kept)
}

// StepOn is ApplyOn for an operation that is not Restricted, taken as
// its input and output (for the checker's walk of a whole history, which
// steps them straight from the list: no PartOp is built for each).
func StepOn(s, spare *State, in ops.Input, out ops.Output) (alt *State, err error) {
	return stepOn(s, spare, in, out)
}

// Reasons joins the distinct messages of rejections, in order (for the
// checker: the reason it reports when no state admits an operation).
func Reasons(errs []error) error { return reasons(errs) }

// ClosedSet is a set of distinct States closed under hidden worker steps,
// as Next returns, kept as nodes that remember each state's hash and hidden
// successors (closure.go). It is never modified once built, except by
// Advance, which only a sole holder calls. For the checker: porcupine's
// state in PorcupineModel (the powerset construction) and Replay's state
// of a part without markers.
type ClosedSet struct {
	nodes []*node
	hash  uint64
}

func newClosedSet(nodes []*node) *ClosedSet {
	return &ClosedSet{nodes: nodes, hash: setHash(nodes)}
}

// InitialClosedSet is the closed set of the object right after kubelet
// start.
func InitialClosedSet() ClosedSet {
	nodes := initialSet()
	return ClosedSet{nodes: nodes, hash: setHash(nodes)}
}

// InitialClosedSetWith is InitialClosedSet with deviations switched on.
func InitialClosedSetWith(dev deviation.Set) ClosedSet {
	nodes := closure([]*node{newNode(InitialState(dev))}, nil)
	return ClosedSet{nodes: nodes, hash: setHash(nodes)}
}

// Next is the powerset step: it steps every member and closes the result.
// If no member admits the operation it returns nil and the rejections
// (formatted only if read, see Reasons); if the operation changed nothing
// and rejected nothing, c itself.
func (c *ClosedSet) Next(op *PartOp) (*ClosedSet, []error) {
	next, errs := nextClosed(c.nodes, op)
	switch {
	case next == nil:
		return nil, errs
	case &next[0] == &c.nodes[0]:
		return c, nil // nothing changed
	}
	return newClosedSet(next), nil
}

// Advance is Next for a set that only the caller holds (Replay's part
// without markers): c becomes the next set in place, and no new ClosedSet
// is allocated. If no member admits the operation, c is left as it was and
// the error joins the rejections (Reasons).
func (c *ClosedSet) Advance(op *PartOp) error {
	next, errs := nextClosed(c.nodes, op)
	if next == nil {
		return reasons(errs)
	}
	if &next[0] != &c.nodes[0] {
		c.nodes, c.hash = next, setHash(next)
	}
	return nil
}

// Same reports whether two closed sets have the same members.
func (c *ClosedSet) Same(d *ClosedSet) bool {
	return c == d || (c.hash == d.hash && sameSet(c.nodes, d.nodes))
}

// Hash is consistent with Same.
func (c *ClosedSet) Hash() uint64 { return c.hash }

// States returns the members, in the set's order, with their views filled
// in (for tests and tools; they share their arrays with the set's).
func (c *ClosedSet) States() []State { return statesOf(c.nodes) }

// Describe renders the members with DescribeState, in braces.
func (c *ClosedSet) Describe() string {
	descriptions := make([]string, len(c.nodes))
	for i, n := range c.nodes {
		descriptions[i] = DescribeState(n.s)
	}
	return "{" + strings.Join(descriptions, ", ") + "}"
}

// Clone returns a copy of s for the checker to step (PartOp.Apply,
// ApplyOn): it shares s's arrays (s gives up writing them in place) and
// drops the views.
func (s *State) Clone() State { return s.clone() }

// Publish clears the copy-on-write marks: s may now be shared (for the
// checker, before it hands a state to porcupine).
func (s *State) Publish() { s.publish() }

// Claim marks every array of s as its own, to be written in place. For the
// checker only, on a state whose arrays no other live state can reach (a
// part down to one state after a fork, in states it never hands out).
func (s *State) Claim() { s.claim() }

// Release makes s forget its records and its copy-on-write marks (for the
// checker): a copy of s taken just before owns its arrays now (a fork's
// second outcome, moved out of the spare that ApplyOn wrote it into).
func (s *State) Release() { s.own, s.recs = 0, nil }

// ReuseRecords gives s, a spare (see ApplyOn), the records' array of
// dropped, a state the checker is dropping, if dropped owned it (then
// nothing else can reach it): the next fork written into s copies its
// records there.
func (s *State) ReuseRecords(dropped *State) {
	if dropped.own&ownRecs != 0 {
		s.recs, s.own = dropped.recs, ownRecs
	}
}
