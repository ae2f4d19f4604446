package model

import (
	"slices"
	"strings"

	"github.com/anishathalye/porcupine"
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

// chain is a run of operations linearized back to back (never recorded; only
// PorcupineMarkedModel's partition builds it).
type chain []Op

func (chain) isInput() {}

// chainRuns merges each run of two or more consecutive unoverlapped
// operations of a part into one chain operation spanning the run. It
// reorders and reuses part (a fresh slice from Partition).
func chainRuns(ops []porcupine.Operation) []porcupine.Operation {
	byCall := func(a, b porcupine.Operation) int { return compareInt64(a.Call, b.Call) }
	if !slices.IsSortedFunc(ops, byCall) {
		slices.SortStableFunc(ops, byCall)
	}
	alone := unoverlapped(ops)
	out := ops[:0]
	for i := 0; i < len(ops); {
		j := i + 1
		for alone[i] && j < len(ops) && alone[j] {
			j++
		}
		if j-i < 2 {
			out = append(out, ops[i])
			i++
			continue
		}
		run := make(chain, j-i)
		for k := i; k < j; k++ {
			run[k-i] = Op{Input: ops[k].Input.(Input), Output: asOutput(ops[k].Output)}
		}
		out = append(out, porcupine.Operation{ClientId: ops[i].ClientId, Input: run, Call: ops[i].Call, Return: ops[j-1].Return})
		i = j
	}
	return out
}

// unoverlapped reports, for operations sorted by call time, which ones no
// other operation overlaps: every earlier one returned before its call and
// every later one is called after its return.
func unoverlapped(ops []porcupine.Operation) []bool {
	alone := make([]bool, len(ops))
	returned := int64(0) // the latest return among ops[:i]
	for i, op := range ops {
		alone[i] = i == 0 || returned < op.Call
		if i > 0 && op.Call <= ops[i-1].Return {
			alone[i-1] = false
		}
		if i == 0 || op.Return > returned {
			returned = op.Return
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
	r := replayer{witness: true, parts: [][]State{make([]State, len(m.states), len(m.states)+1)}}
	for i := range m.states {
		r.parts[0][i] = m.states[i].clone() // shared: written only after a copy
	}
	var op partOp
	for _, o := range run {
		op = partOp{in: o.Input, out: o.Output}
		if err := r.step(0, &op); err != nil {
			return nil
		}
	}
	next := r.parts[0]
	for i := range next {
		next[i].publish()
	}
	if len(next) == 1 && len(m.states) == 1 && next[0].equal(&m.states[0]) {
		return m
	}
	return newMarkedSet(next)
}

// describeChain renders a chain as its operations in order.
func describeChain(run chain) string {
	parts := make([]string, len(run))
	for i, o := range run {
		parts[i] = Describe(o.Input, o.Output)
	}
	return strings.Join(parts, "; ")
}
