package check

import (
	"fmt"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/podsim/podsim/model"
	"github.com/podsim/podsim/model/deviation"
	"github.com/podsim/podsim/model/ops"
)

// PorcupineModel is the model in porcupine's terms, partitioned by pod UID
// (static pods by full name, see Partition). The model is nondeterministic —
// each step is model.Step followed by model.Closure — and porcupine sees it
// through the powerset construction of
// porcupine.NondeterministicModel.ToModel, done by hand: a porcupine state
// is a closed set of States (*model.ClosedSet). Doing it by hand lets the
// set keep its members' hashes and closure memos, hand back the very same
// set when an operation changes nothing, and compare sets by hash instead
// of pairwise. Inputs are package ops's Input types; outputs are
// ops.Answer, ops.KnownPods or nil.
func PorcupineModel() porcupine.Model { return PorcupineModelWith(0) }

// PorcupineModelWith is PorcupineModel with model deviations switched on.
func PorcupineModelWith(dev deviation.Set) porcupine.Model {
	return porcupine.Model{
		Partition: Partition,
		Init:      func() any { c := model.InitialClosedSetWith(dev); return &c },
		Step: func(state, input, output any) (bool, any) {
			if _, ok := input.(chain); ok { // PorcupineMarkedModel's: an unknown operation here
				return false, (*model.ClosedSet)(nil)
			}
			next, _ := state.(*model.ClosedSet).Next(&model.PartOp{In: input.(ops.Input), Out: asOutput(output)})
			return next != nil, next
		},
		Equal:             func(a, b any) bool { return a.(*model.ClosedSet).Same(b.(*model.ClosedSet)) },
		Hash:              func(s any) uint64 { return s.(*model.ClosedSet).Hash() },
		DescribeOperation: DescribeOperation,
		DescribeState:     func(s any) string { return s.(*model.ClosedSet).Describe() },
	}
}

// Check runs porcupine over a history (timeout 0 = none); the info can be
// rendered with porcupine.Visualize.
func Check(history []porcupine.Operation, timeout time.Duration) (porcupine.CheckResult, porcupine.LinearizationInfo) {
	return CheckWith(history, timeout, 0)
}

// CheckWith is Check against the model with deviations switched on.
func CheckWith(history []porcupine.Operation, timeout time.Duration, dev deviation.Set) (porcupine.CheckResult, porcupine.LinearizationInfo) {
	return porcupine.CheckOperationsVerbose(PorcupineModelWith(dev), history, timeout)
}

func asOutput(out any) ops.Output {
	if out == nil {
		return nil
	}
	o, ok := out.(ops.Output)
	if !ok {
		panic(fmt.Sprintf("model: output %T is not an ops.Output (Answer, KnownPods or nil)", out))
	}
	return o
}
