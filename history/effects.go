package history

import (
	"cmp"
	"slices"

	"github.com/podsim/podsim/model/ops"
)

// The recorder's effect order (History.Effects) and witness, kept as the
// operations take effect.

// took records that operation i takes effect at ev: its effect, and its
// place in the effect order (effects).
func (r *Recorder) took(i int, ev *Event) {
	op := &r.ops[i]
	op.effect, op.effectAt = ev.Seq, ev.At
	if n := len(r.effects); n > 0 {
		last := r.ops[r.effects[n-1]].effect
		r.unordered = r.unordered || ev.Seq < last || ev.Seq == last && i < r.effects[n-1]
	}
	r.effects = append(r.effects, i)
}

// effectOrder appends to effects the effect order: every operation that
// took effect before cut (0: no cut), kept[i] its index in Ops (-1: none,
// a witness-only one's effect has none), by the Seq of its effect, ties by
// index. That is the order they took effect in (Recorder.effects) unless a
// Seq went back: then a stable sort of them in index order.
func (r *Recorder) effectOrder(effects []Effect, kept []int, cut int64) []Effect {
	witness := r.witness[:0]
	add := func(i int) {
		switch op := &r.ops[i]; {
		case op.witnessOnly && op.tookEffectBefore(cut):
			effects = append(effects, Effect{Op: -1, Step: op.in, Seq: op.effect, At: op.effectAt})
			witness = append(witness, op.witnessOp())
		case kept[i] >= 0:
			effects = append(effects, Effect{Op: kept[i], Seq: op.effect, At: op.effectAt})
			witness = append(witness, op.witnessOp())
		}
	}
	if !r.unordered {
		for _, i := range r.effects {
			add(i)
		}
		r.witness = witness
		return effects
	}
	for i := range r.ops {
		add(i)
	}
	slices.SortStableFunc(effects, func(a, b Effect) int { return cmp.Compare(a.Seq, b.Seq) })
	r.witness = nil // not in the effect order: Witness builds it from the History
	return effects
}

// Witness is h.Witness() of h, the History taken last (History) if it is
// not changed since, as the recorder made it: its own operations, not
// unboxed from h's (nil: it has none, and Witness unboxes h's). It is the
// recorder's until its next History or Reset: the caller neither keeps
// nor writes it.
func (r *Recorder) Witness(h History) []ops.Op {
	if r.witness == nil || len(r.witness) != len(h.Effects) {
		return h.Witness()
	}
	return r.witness
}

// EffectWitness is the witness of the History that History would return
// now (that History's Witness), built from the recorder's own operations
// without making the History: for a check that reads the History only when
// the witness fails (linearize's Finish). ok is false when a Seq went back
// (History sorts its effect order then): read History's witness instead.
// The witness is the recorder's until its next History, EffectWitness or
// Reset: the caller neither keeps nor writes it.
func (r *Recorder) EffectWitness() (witness []ops.Op, ok bool) {
	if r.unordered {
		return nil, false
	}
	cut := r.cut()
	witness = r.witness[:0]
	for _, i := range r.effects {
		if op := &r.ops[i]; op.tookEffectBefore(cut) {
			witness = append(witness, op.witnessOp())
		}
	}
	r.witness = witness
	return witness, true
}

// cut is where History cuts the history: the earliest effect of a call
// that took effect but never returned (0: none).
func (r *Recorder) cut() int64 {
	var cut int64
	for _, i := range r.open.Values() {
		if e := r.ops[i].effect; e != 0 && (cut == 0 || e < cut) {
			cut = e
		}
	}
	return cut
}

// tookEffectBefore reports whether op took effect before cut (0: no cut):
// the operations History keeps, witness-only ones in the witness alone.
func (op *recOp) tookEffectBefore(cut int64) bool {
	return op.effect != 0 && (cut == 0 || op.effect < cut)
}

// witnessOp is op as a witness holds it: a witness-only step has no output.
func (op *recOp) witnessOp() ops.Op {
	if op.witnessOnly {
		return ops.Op{Input: op.in}
	}
	return ops.Op{Input: op.in, Output: op.out}
}
