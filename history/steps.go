package history

import (
	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/model/ops"
	"github.com/podsim/podsim/plan"
)

// witnessWorkerStep makes the witness-only operation recorded at every
// LockAcquired by a goroutine worker/<uid>: the instant of a hidden worker
// step (take, acknowledge, apply an outcome, or nothing), so Replay
// runs in witness mode and need not explore when the worker stepped. The
// markers never reach porcupine's history (no client could observe them;
// check.Partition drops them anyway), only Replay's. nil switches them off:
// Replay then explores the hidden steps itself (closure mode).
var witnessWorkerStep = func(uid string) ops.Input {
	if i, ok := plan.LetterIndex(types.UID(uid)); ok {
		return letterSteps[i]
	}
	return ops.WorkerStep{UID: uid}
}

// letterSteps are the markers' inputs of the one-letter UIDs the plan's
// generators name their pods with (a, b, …), boxed once for every run:
// boxing one is an allocation, made at every first marker of a UID.
var letterSteps = func() (steps [26]ops.Input) {
	for i := range steps {
		steps[i] = ops.WorkerStep{UID: plan.SameUID(string(rune('a' + i)))} // plan.LetterIndex's i-th, in the plan's memory
	}
	return steps
}()
