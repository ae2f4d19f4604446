package check

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/podsim/podsim/model/ops"
)

// TestUnoverlapped: an operation is alone iff no other one overlaps it as
// porcupine orders events (a call at the instant of a return overlaps it).
func TestUnoverlapped(t *testing.T) {
	iv := func(spans ...[2]int64) []timedOp {
		var ops []timedOp
		for _, s := range spans {
			ops = append(ops, timedOp{call: s[0], ret: s[1]})
		}
		return ops
	}
	rows := []struct {
		name string
		ops  []timedOp
		want []bool
	}{
		{"sequential", iv([2]int64{0, 1}, [2]int64{2, 3}, [2]int64{4, 5}), []bool{true, true, true}},
		{"middle overlaps the first", iv([2]int64{0, 2}, [2]int64{1, 3}, [2]int64{4, 5}), []bool{false, false, true}},
		{"call at the return instant", iv([2]int64{0, 1}, [2]int64{1, 2}, [2]int64{3, 3}), []bool{false, false, true}},
		{"a long one covers later ones", iv([2]int64{0, 9}, [2]int64{1, 2}, [2]int64{3, 4}, [2]int64{10, 11}), []bool{false, false, false, true}},
		{"points", iv([2]int64{5, 5}, [2]int64{6, 6}), []bool{true, true}},
	}
	for _, row := range rows {
		if got := unoverlapped(row.ops); !slices.Equal(got, row.want) {
			t.Errorf("%s: got %v, want %v", row.name, got, row.want)
		}
	}
}

// TestChainsKeepTheVerdict: PorcupineMarkedModel (runs of unoverlapped
// operations chained) and the same model on the unchained parts give the
// same verdict on generated histories with overlapping intervals, legal
// and corrupted at one observation; and chains do form.
func TestChainsKeepTheVerdict(t *testing.T) {
	unchained := PorcupineMarkedModel()
	unchained.Partition = PartitionMarked
	verdicts := map[porcupine.CheckResult]int{}
	chains, loose := 0, 0
	for seed := range uint64(6) {
		list := newWitnessGen(seed, 4).run(120)
		history := jitter(list, seed)
		for _, part := range PorcupineMarkedModel().Partition(history) {
			for _, op := range part {
				if _, ok := op.Input.(chain); ok {
					chains++
				} else {
					loose++
				}
			}
		}
		for i := -1; i < len(history); i += 3 {
			mutant := slices.Clone(history)
			if i >= 0 {
				o := ops.Op{Input: mutant[i].Input.(ops.Input), Output: asOutput(mutant[i].Output)}
				if !mutate(&o) {
					continue
				}
				mutant[i].Input, mutant[i].Output = o.Input, o.Output
			}
			got, _ := CheckMarked(mutant, time.Minute)
			want, _ := porcupine.CheckOperationsVerbose(unchained, mutant, time.Minute)
			if got != want {
				t.Fatalf("seed %d mutant %d: chained %v, unchained %v", seed, i, got, want)
			}
			verdicts[got]++
		}
	}
	if verdicts[porcupine.Ok] == 0 || verdicts[porcupine.Illegal] == 0 || chains == 0 || loose == 0 {
		t.Fatalf("verdicts %v, %d chains, %d loose operations: want some of each", verdicts, chains, loose)
	}
	t.Logf("verdicts %v, %d chains, %d loose operations", verdicts, chains, loose)
}

// jitter gives the i-th operation an interval around 10·i that may overlap
// its neighbours': the given order stays a linearization.
func jitter(list []ops.Op, seed uint64) []porcupine.Operation {
	rng := rand.New(rand.NewPCG(seed, 7))
	out := make([]porcupine.Operation, len(list))
	for i, o := range list {
		at := int64(10 * i)
		call, ret := at, at
		if rng.IntN(3) == 0 {
			call, ret = at-rng.Int64N(25), at+rng.Int64N(25)
		}
		out[i] = porcupine.Operation{ClientId: i % 5, Input: o.Input, Output: o.Output, Call: call, Return: ret}
	}
	return out
}
