package history

import (
	"cmp"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
)

// sortedEffects is History's effect order as it was built before the
// recorder kept it (session 18 of issue 19), the definition the kept order
// must agree with: every operation that took effect before cut, in index
// order, then a stable sort by Seq. kept[i] is operation i's index in Ops.
func sortedEffects(r *Recorder, kept []int, cut int64) []Effect {
	var out []Effect
	for i, op := range r.ops {
		switch {
		case op.witnessOnly && op.effect != 0 && (cut == 0 || op.effect < cut):
			out = append(out, Effect{Op: -1, Step: op.in, Seq: op.effect, At: op.effectAt})
		case !op.witnessOnly && kept[i] >= 0:
			out = append(out, Effect{Op: kept[i], Seq: op.effect, At: op.effectAt})
		}
	}
	slices.SortStableFunc(out, func(a, b Effect) int { return cmp.Compare(a.Seq, b.Seq) })
	return out
}

// randomStream is a protocol-respecting stream of n events: three client
// goroutines calling (updates and queries under the pod lock, killPodNow
// waits without it), a worker taking the lock and running callbacks, fires
// and failed reads; some calls are left open (a cut). back swaps the Seqs
// of some events, as a target whose Seqs go back would.
func randomStream(t *testing.T, rng *rand.Rand, n int, back bool) []Event {
	in := func(s string) Event { return script(t, "g "+s)[0] }
	var out []Event
	holder, state, id := "", map[string]int{}, 0 // state: 0 idle, 1 called, 2 in its section, 3 to return
	callID := map[string]int{}
	emit := func(g, what string, id int) {
		ev := in(what)
		ev.Goroutine, ev.ID = g, id
		out = append(out, ev)
	}
	for len(out) < n {
		g := []string{"client/0", "client/1", "client/2", "worker/a"}[rng.IntN(4)]
		switch s := state[g]; {
		case g == "worker/a" && holder == "":
			holder = g
			emit(g, "lock", 0)
		case g == "worker/a" && holder == g:
			holder = ""
			emit(g, "unlock", 0)
		case g == "worker/a":
			emit(g, []string{"begin begin", "end end", "fired fire", "readfailed readerr"}[rng.IntN(4)], 0)
		case s == 0:
			id++
			callID[g], state[g] = id, 1
			what := []string{"call update", "call query", "call wait"}[rng.IntN(3)]
			if what == "call wait" {
				state[g] = 3
			}
			emit(g, what, id)
		case s == 1 && holder == "":
			holder, state[g] = g, 2
			emit(g, "lock", 0)
		case s == 2 && rng.IntN(3) == 0:
			emit(g, "fired fire", 0)
		case s == 2:
			holder, state[g] = "", 3
			emit(g, "unlock", 0)
		case s == 3 && rng.IntN(8) > 0:
			state[g] = 0
			emit(g, "return", callID[g])
		}
	}
	for i := range out {
		out[i].Seq = int64(i + 1)
	}
	if back {
		for range 3 {
			i, j := rng.IntN(len(out)), rng.IntN(len(out))
			out[i].Seq, out[j].Seq = out[j].Seq, out[i].Seq
		}
	}
	return out
}

// TestEffectOrderIsTheSortedOrder: the effect order the recorder keeps as
// operations take effect is the stable sort by Seq History used to make,
// on streams whose Seqs rise (the kept order is used as it is) and on
// streams whose Seqs go back (History sorts): a recorder that trusted the
// kept order there would fail (TestEffectOrderCatchesUntrustedOrder).
func TestEffectOrderIsTheSortedOrder(t *testing.T) {
	for _, back := range []bool{false, true} {
		unordered := 0
		for seed := range uint64(300) {
			rng := rand.New(rand.NewPCG(seed, 19))
			r := NewRecorder()
			for _, ev := range randomStream(t, rng, 10+rng.IntN(60), back) {
				r.Observe(&ev)
			}
			if r.unordered {
				unordered++
			}
			h := r.History()
			kept := keptIndex(r, h)
			if want := sortedEffects(r, kept, h.Cut); !reflect.DeepEqual(h.Effects, want) {
				t.Fatalf("back %v seed %d: effects %v, want the sorted order %v", back, seed, h.Effects, want)
			}
		}
		if (unordered > 0) != back {
			t.Errorf("back %v: %d of 300 streams were unordered", back, unordered)
		}
	}
}

// TestEffectOrderCatchesUntrustedOrder: on a stream whose Seqs go back, the
// order operations took effect in is not the sorted one, so a recorder
// that did not notice (unordered never set) would give another effect
// order: the comparison of TestEffectOrderIsTheSortedOrder catches it.
func TestEffectOrderCatchesUntrustedOrder(t *testing.T) {
	for seed := range uint64(300) {
		rng := rand.New(rand.NewPCG(seed, 19))
		r := NewRecorder()
		for _, ev := range randomStream(t, rng, 10+rng.IntN(60), true) {
			r.Observe(&ev)
		}
		r.unordered = false // the broken form
		h := r.History()
		if !reflect.DeepEqual(h.Effects, sortedEffects(r, keptIndex(r, h), h.Cut)) {
			return
		}
	}
	t.Fatal("no stream whose Seqs go back gave another effect order when trusted: the comparison proves nothing")
}

// keptIndex is, for each recorded operation, its index in h.Ops (-1: none).
func keptIndex(r *Recorder, h History) []int {
	kept, n := make([]int, len(r.ops)), 0
	for i, op := range r.ops {
		kept[i] = -1
		if !op.witnessOnly && op.effect != 0 && (h.Cut == 0 || op.effect < h.Cut) {
			kept[i], n = n, n+1
		}
	}
	return kept
}

// TestRecorderWitnessIsHistoryWitness: the witness the recorder keeps of
// the History taken last is that History's Witness, on streams whose Seqs
// rise and go back, cut or not, run after run on one recorder (Reset
// between: a witness kept from the run before would differ).
func TestRecorderWitnessIsHistoryWitness(t *testing.T) {
	r := NewRecorder()
	kept := 0
	for _, back := range []bool{false, true} {
		for seed := range uint64(300) {
			rng := rand.New(rand.NewPCG(seed, 20))
			r.Reset()
			for _, ev := range randomStream(t, rng, 10+rng.IntN(60), back) {
				r.Observe(&ev)
			}
			h := r.History()
			got := r.Witness(h)
			if len(got) > 0 && len(r.witness) > 0 && &got[0] == &r.witness[0] {
				kept++ // the kept witness, not one unboxed from h
			}
			if want := h.Witness(); !reflect.DeepEqual(got, want) {
				t.Fatalf("back %v seed %d: recorder's witness %v, want the history's %v", back, seed, got, want)
			}
		}
	}
	if kept == 0 {
		t.Fatal("the kept witness was never used: nothing was compared")
	}
}

// TestEffectWitnessIsHistoryWitness: the witness EffectWitness builds
// without a History is the Witness of the History taken right after, on
// streams whose Seqs rise (ok) and go back (not ok: History sorts), run
// after run on one recorder. Some of the streams are cut, and the cut drops
// effects, so a witness that ignored the cut would differ.
func TestEffectWitnessIsHistoryWitness(t *testing.T) {
	r := NewRecorder()
	cutShort := 0
	for _, back := range []bool{false, true} {
		for seed := range uint64(300) {
			rng := rand.New(rand.NewPCG(seed, 21))
			r.Reset()
			for _, ev := range randomStream(t, rng, 10+rng.IntN(60), back) {
				r.Observe(&ev)
			}
			got, ok := r.EffectWitness()
			got = slices.Clone(got) // History rebuilds the recorder's
			h := r.History()
			if ok == r.unordered {
				t.Fatalf("back %v seed %d: ok %v with unordered %v", back, seed, ok, r.unordered)
			}
			if !ok {
				continue
			}
			if want := h.Witness(); !reflect.DeepEqual(got, want) {
				t.Fatalf("back %v seed %d: EffectWitness %v, want the history's %v", back, seed, got, want)
			}
			if len(got) < len(r.effects) {
				cutShort++
			}
		}
	}
	if cutShort == 0 {
		t.Fatal("no stream's cut dropped an effect: the cut was never compared")
	}
}

// TestRowsAreFirstAppearance: History numbers the rows (Rows, each
// operation's ClientId) in the order the goroutines first made an
// operation, as the recorder did when it numbered them at every operation,
// and a History taken mid-stream (History numbers only the operations
// recorded since the last) changes neither the rows nor the numbering of
// the operations recorded after it: on streams with histories taken at
// random points, the last History's rows equal those of a recorder asked
// only at the end, and each operation's row names its goroutine.
func TestRowsAreFirstAppearance(t *testing.T) {
	mid := 0
	for seed := range uint64(300) {
		rng := rand.New(rand.NewPCG(seed, 22))
		stream := randomStream(t, rng, 10+rng.IntN(60), false)
		r, once := NewRecorder(), NewRecorder()
		for _, ev := range stream {
			r.Observe(&ev)
			once.Observe(&ev)
			if rng.IntN(10) == 0 {
				r.History()
				mid++
			}
		}
		h, want := r.History(), once.History()
		if !slices.Equal(h.Rows, want.Rows) {
			t.Fatalf("seed %d: rows %v with histories taken mid-stream, %v without", seed, h.Rows, want.Rows)
		}
		var first []string // the goroutines in order of their first operation
		for _, op := range r.ops {
			if !slices.Contains(first, op.g) {
				first = append(first, op.g)
			}
			if h.Rows[op.row] != op.g {
				t.Fatalf("seed %d: an operation of %s is in row %d, %s", seed, op.g, op.row, h.Rows[op.row])
			}
		}
		if !slices.Equal(h.Rows, first) {
			t.Fatalf("seed %d: rows %v, want the order of first appearance %v", seed, h.Rows, first)
		}
	}
	if mid == 0 {
		t.Fatal("no History was taken mid-stream")
	}
}
