package check

import (
	"slices"

	"github.com/anishathalye/porcupine"
	"github.com/podsim/podsim/model"
	"github.com/podsim/podsim/model/ops"
)

// Chains: less work for porcupine's search, same verdict (mechanics).
//
// In a part, an operation that no other operation of the part overlaps in
// real time has one place in every linearization: after everything that
// returned before its call, before everything called after its return. A
// run of such operations, one after the other, is therefore linearized back
// to back, and porcupine may as well see the run as one operation (a chain)
// whose step is the run's steps in order: a linearization of the chained
// history is one of the original and back. Porcupine's bookkeeping (entries,
// linked lists, bitsets, its cache) is paid once per chain, and the chain's
// steps run like Replay's witness mode, in place on private copies.
//
// Overlap is judged as porcupine orders events: by time, a call before a
// return at the same instant, so an operation called at the instant another
// returns overlaps it.

// timedOp is an operation of one part with its real-time interval.
type timedOp struct {
	op        model.PartOp
	call, ret int64
	client    int
}

// chain is a run of operations linearized back to back (never recorded; only
// PorcupineMarkedModel's partition builds it).
// It is not an ops.Input: PorcupineMarkedModel's Step and
// DescribeOperation tell it apart.
type chain []timedOp

// partitionChained is PartitionMarked with each run of two or more
// consecutive unoverlapped operations of a part made one chain operation.
func partitionChained(history []porcupine.Operation) [][]porcupine.Operation {
	list := opsOfHistory(history)
	plan := planPartitions(list)
	timed := make([][]timedOp, plan.parts)
	for q, n := range plan.sizes(list, true) {
		timed[q] = make([]timedOp, 0, n)
	}
	var split knownSplit
	var uids []string // one array for every part's desired UIDs, and one
	var known ops.KnownPods
	for i, h := range history {
		t := timedOp{op: model.PartOp{In: list[i].Input, Out: list[i].Output}, call: h.Call, ret: h.Return, client: h.ClientId}
		p := plan.partOf[i]
		if p != broadcast {
			timed[p] = append(timed[p], t)
			continue
		}
		split.split(&plan, list[i])
		for q, owns := range plan.owns {
			if owns {
				in, kept := split.part(q)
				t.op = model.PartOp{Restricted: true}
				uids, t.op.Desired = carve(uids, in.Desired)
				known, t.op.Kept = carve(known, kept)
				timed[q] = append(timed[q], t)
			}
		}
	}
	parts := make([][]porcupine.Operation, 0, plan.parts)
	for _, part := range timed {
		if len(part) > 0 {
			parts = append(parts, chainRuns(part))
		}
	}
	return parts
}

// chainRuns sorts a part by call time (reordering part) and returns it as
// porcupine operations, each run of unoverlapped operations one chain.
func chainRuns(part []timedOp) []porcupine.Operation {
	byCall := func(a, b timedOp) int { return compareInt64(a.call, b.call) }
	if !slices.IsSortedFunc(part, byCall) {
		slices.SortStableFunc(part, byCall)
	}
	alone := unoverlapped(part)
	var out []porcupine.Operation
	for i := 0; i < len(part); {
		j := i + 1
		for alone[i] && j < len(part) && alone[j] {
			j++
		}
		op := porcupine.Operation{ClientId: part[i].client, Call: part[i].call, Return: part[j-1].ret}
		if j-i == 1 {
			op.Input, op.Output = boxed(&part[i].op)
		} else {
			op.Input = chain(part[i:j:j])
		}
		out = append(out, op)
		i = j
	}
	return out
}

// boxed returns the operation as an Input and Output.
func boxed(o *model.PartOp) (ops.Input, ops.Output) {
	if o.Restricted {
		return ops.SyncKnownPods{Desired: o.Desired}, o.Kept
	}
	return o.In, o.Out
}

// unoverlapped reports, for operations sorted by call time, which ones no
// other operation overlaps: every earlier one returned before its call and
// every later one is called after its return.
func unoverlapped(ops []timedOp) []bool {
	alone := make([]bool, len(ops))
	returned := int64(0) // the latest return among ops[:i]
	for i, op := range ops {
		alone[i] = i == 0 || returned < op.call
		if i > 0 && op.call <= ops[i-1].ret {
			alone[i-1] = false
		}
		if i == 0 || op.ret > returned {
			returned = op.ret
		}
	}
	return alone
}

func compareInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// nextChain steps every member through the whole run, in place on private
// copies (no intermediate porcupine state): nil if no state survives.
func (m *markedSet) nextChain(run chain) *markedSet {
	r := replayer{witness: true, parts: [][]model.State{make([]model.State, len(m.states), len(m.states)+1)}}
	for i := range m.states {
		r.parts[0][i] = m.states[i].Clone() // shared: written only after a copy
	}
	for k := range run {
		if err := r.step(0, &run[k].op); err != nil {
			return nil
		}
	}
	next := r.parts[0]
	for i := range next {
		next[i].Publish()
	}
	if len(next) == 1 && len(m.states) == 1 && next[0].Equal(m.states[0]) {
		return m
	}
	return newMarkedSet(next)
}
