package check

import (
	"slices"
	"strings"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/podsim/podsim/model"
	"github.com/podsim/podsim/model/deviation"
	"github.com/podsim/podsim/model/ops"
)

// PorcupineMarkedModel is PorcupineModel for a history that carries the
// WorkerStep markers (witness mode, see the package doc) as operations of
// their own: hidden worker steps happen only at markers, so a porcupine
// state is the state or two that Replay's witness mode holds, stepped
// without any closure. Porcupine still searches over the order of
// overlapping operations; it just no longer explores when each worker
// stepped. Like witness mode it can only be stricter than PorcupineModel
// (a linearization with the hidden steps at the markers is a linearization),
// so Ok is final and Illegal must be confirmed by PorcupineModel on the
// history without markers (a misplaced marker fails it, see Replay).
func PorcupineMarkedModel() porcupine.Model { return PorcupineMarkedModelWith(0) }

// PorcupineMarkedModelWith is PorcupineMarkedModel with model deviations
// switched on.
func PorcupineMarkedModelWith(dev deviation.Set) porcupine.Model {
	return porcupine.Model{
		Partition: partitionChained,
		Init:      func() any { return newMarkedSet([]model.State{model.InitialState(dev)}) },
		Step: func(state, input, output any) (bool, any) {
			next := state.(*markedSet).next(input, asOutput(output))
			return next != nil, next
		},
		Equal:             func(a, b any) bool { return a.(*markedSet).equal(b.(*markedSet)) },
		Hash:              func(s any) uint64 { return s.(*markedSet).hash },
		DescribeOperation: DescribeOperation,
		DescribeState:     func(s any) string { return s.(*markedSet).describe() },
	}
}

// CheckMarked is Check with PorcupineMarkedModel, on a history with markers.
func CheckMarked(history []porcupine.Operation, timeout time.Duration) (porcupine.CheckResult, porcupine.LinearizationInfo) {
	return CheckMarkedWith(history, timeout, 0)
}

// CheckMarkedWith is CheckMarked against the model with deviations
// switched on.
func CheckMarkedWith(history []porcupine.Operation, timeout time.Duration, dev deviation.Set) (porcupine.CheckResult, porcupine.LinearizationInfo) {
	return porcupine.CheckOperationsVerbose(PorcupineMarkedModelWith(dev), history, timeout)
}

// markedSet is one porcupine state of PorcupineMarkedModel: distinct,
// published States (so they can be shared), never modified once built.
type markedSet struct {
	states []model.State
	hashes []uint64
	hash   uint64
}

// hashPrime is model's mixing constant (hash.go): a marked set's hash
// mixes its members' hashes as a closed set's does (order-free).
const hashPrime = 0x9E3779B97F4A7C15

func newMarkedSet(states []model.State) *markedSet {
	m := &markedSet{states: states, hashes: make([]uint64, len(states))}
	for i := range states {
		m.hashes[i] = states[i].Hash()
		m.hash += m.hashes[i] ^ (m.hashes[i]>>31)*hashPrime // order-free, as a model.ClosedSet's
	}
	return m
}

// next steps every member (no closure): nil if none admits the operation,
// m itself if the operation changed nothing. input is a chain or an
// ops.Input.
func (m *markedSet) next(input any, out ops.Output) *markedSet {
	if run, ok := input.(chain); ok {
		return m.nextChain(run)
	}
	op := model.PartOp{In: input.(ops.Input), Out: out}
	var buf [2]model.State // most steps give one state, often the same one: no allocation then
	next := buf[:0]
	for _, s := range m.states {
		next, _ = op.Apply(next, s.Clone())
	}
	switch {
	case len(next) == 0:
		return nil
	case len(next) > 1:
		next = distinct(next)
	}
	for i := range next {
		next[i].Publish()
	}
	if len(next) == 1 && len(m.states) == 1 && next[0].Equal(m.states[0]) {
		return m
	}
	return newMarkedSet(slices.Clone(next))
}

// equal: the same members, in any order (members are distinct).
func (m *markedSet) equal(o *markedSet) bool {
	if m == o {
		return true
	}
	if m.hash != o.hash || len(m.states) != len(o.states) {
		return false
	}
	for i := range m.states {
		found := false
		for j := range o.states {
			if m.hashes[i] == o.hashes[j] && m.states[i].Equal(o.states[j]) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

func (m *markedSet) describe() string {
	descriptions := make([]string, len(m.states))
	for i, s := range m.states {
		descriptions[i] = model.DescribeState(s)
	}
	return "{" + strings.Join(descriptions, ", ") + "}"
}
