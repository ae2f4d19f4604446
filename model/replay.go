package model

import "fmt"

// Replay checks a totally ordered history: ops in the order in which they
// took effect (client calls at their pod-lock critical section, fires at the
// fire, callbacks at entry and return), as the simulation knows it. It steps
// each part of the history (see Partition) through Next, so hidden worker
// steps are still explored, but no search over orders is needed: the cost
// is linear in the history.
//
// ok ⇒ the history is linearizable (the order is a witness). !ok only says
// this order is not a linearization; porcupine decides whether another one
// is. failedAt is the index of the first operation no possible state admits.
func Replay(ops []Op) (ok bool, failedAt int, reason string) {
	plan := planPartitions(ops)
	states := make([][]State, len(plan.members))
	for p := range states {
		states[p] = []State{NewState()}
	}
	partsOf := make([][]int, len(ops))
	for p, members := range plan.members {
		for _, i := range members {
			partsOf[i] = append(partsOf[i], p)
		}
	}
	for i, op := range ops {
		for _, p := range partsOf[i] {
			in, out := op.Input, op.Output
			if skp, isSKP := in.(SyncKnownPods); isSKP {
				in, out = restrictKnown(skp, out, plan.uids[p])
			}
			next, err := Next(states[p], in, out)
			if err != nil {
				return false, i, fmt.Sprintf("op %d %q: %v", i, Describe(op.Input, op.Output), err)
			}
			states[p] = next
		}
	}
	return true, -1, ""
}
