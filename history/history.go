package history

import (
	"slices"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/podsim/podsim/model/ops"
)

// History is a recorded run: the observed operations for porcupine and the
// order in which they took effect for the witness replay.
type History struct {
	// Ops are the observed operations in call order, timestamps as in the
	// recording contract; Metadata names the event seqs and virtual time.
	Ops []porcupine.Operation
	// Effects is the witness order: the order in which the operations took
	// effect, plus witness-only worker steps.
	Effects []Effect
	// Rows names porcupine's ClientIds.
	Rows []string
	// Clock lists the virtual-time jumps.
	Clock []ClockMark
	// Cut is the effect seq of the first call that never returned (the
	// history stops just before it), 0 if every call returned; Dropped
	// counts the operations left out by the cut.
	Cut     int64
	Dropped int
}

// Effect is one entry of the witness order.
type Effect struct {
	Op   int       // index in Ops, -1 for a witness-only step
	Step ops.Input // the witness-only step's input, when Op == -1
	Seq  int64     // the event at which it took effect
	At   time.Duration
}

// Witness is the effect order as check.Replay takes it.
func (h History) Witness() []ops.Op {
	out := make([]ops.Op, len(h.Effects))
	for i, e := range h.Effects {
		out[i] = h.Op(e)
	}
	return out
}

// Unmarked is the effect order without the witness-only worker steps, and
// for each of its operations the index of its entry in Effects.
func (h History) Unmarked() ([]ops.Op, []int) {
	var seq []ops.Op
	var index []int
	for i, e := range h.Effects {
		if e.Op >= 0 {
			seq = append(seq, h.Op(e))
			index = append(index, i)
		}
	}
	return seq, index
}

// MarkedOps is Ops with the worker-step markers added, each a point at its
// event (as callbacks are), for check.CheckMarked.
func (h History) MarkedOps() []porcupine.Operation {
	ops := slices.Clip(h.Ops)
	for _, e := range h.Effects {
		if e.Op < 0 {
			ops = append(ops, porcupine.Operation{Input: e.Step, Call: 2 * e.Seq, Return: 2*e.Seq + 1})
		}
	}
	return ops
}

// Op is the model operation of one witness entry.
func (h History) Op(e Effect) ops.Op {
	if e.Op < 0 {
		return ops.Op{Input: e.Step}
	}
	o := h.Ops[e.Op]
	out, _ := o.Output.(ops.Output)
	return ops.Op{Input: o.Input.(ops.Input), Output: out}
}
