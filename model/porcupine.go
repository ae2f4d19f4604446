package model

import (
	"fmt"
	"strings"
	"time"

	"github.com/anishathalye/porcupine"
)

// PorcupineModel is the model in porcupine's terms, partitioned by pod UID
// (static pods by full name, see Partition). The model is nondeterministic —
// each step is Step followed by Closure — and porcupine sees it through the
// powerset construction of porcupine.NondeterministicModel.ToModel, done
// here by hand: a porcupine state is a closed set of States (*closedSet).
// Doing it here lets the set keep its members' hashes and closure memos,
// hand back the very same set when an operation changes nothing, and
// compare sets by hash instead of pairwise. Inputs are the Input types of
// this package; outputs are Answer, KnownPods or nil.
func PorcupineModel() porcupine.Model {
	return porcupine.Model{
		Partition: Partition,
		Init:      func() any { return newClosedSet(initialSet()) },
		Step: func(state, input, output any) (bool, any) {
			next := state.(*closedSet).next(input.(Input), asOutput(output))
			return next != nil, next
		},
		Equal:             func(a, b any) bool { return a.(*closedSet).equal(b.(*closedSet)) },
		Hash:              func(s any) uint64 { return s.(*closedSet).hash },
		DescribeOperation: func(in, out any) string { return Describe(in.(Input), asOutput(out)) },
		DescribeState:     func(s any) string { return s.(*closedSet).describe() },
	}
}

// Check runs porcupine over a history (timeout 0 = none); the info can be
// rendered with porcupine.Visualize.
func Check(history []porcupine.Operation, timeout time.Duration) (porcupine.CheckResult, porcupine.LinearizationInfo) {
	return porcupine.CheckOperationsVerbose(PorcupineModel(), history, timeout)
}

func asOutput(out any) Output {
	if out == nil {
		return nil
	}
	o, ok := out.(Output)
	if !ok {
		panic(fmt.Sprintf("model: output %T is not a model.Output (Answer, KnownPods or nil)", out))
	}
	return o
}

// closedSet is one porcupine state: the distinct States the object may be
// in, closed under hidden worker steps. It is never modified once built.
type closedSet struct {
	nodes []*node
	hash  uint64
}

func newClosedSet(nodes []*node) *closedSet {
	return &closedSet{nodes: nodes, hash: setHash(nodes)}
}

// next is the powerset step: nil if no member admits the operation.
func (c *closedSet) next(in Input, out Output) *closedSet {
	next, _ := nextClosed(c.nodes, &partOp{in: in, out: out})
	switch {
	case next == nil:
		return nil
	case &next[0] == &c.nodes[0]:
		return c // nothing changed
	}
	return newClosedSet(next)
}

func (c *closedSet) equal(d *closedSet) bool {
	return c == d || (c.hash == d.hash && sameSet(c.nodes, d.nodes))
}

func (c *closedSet) describe() string {
	descriptions := make([]string, len(c.nodes))
	for i, n := range c.nodes {
		descriptions[i] = DescribeState(n.s)
	}
	return "{" + strings.Join(descriptions, ", ") + "}"
}
