package guided

import (
	"context"
	"reflect"
	"testing"

	"github.com/podsim/podsim/run"
)

// TestLeanLoopIsTheLoop: a guided loop whose check is Lean (simrun's
// without --json) makes the same runs as the full one and grows the same
// corpus bytes: its corpus reads each run's coverage, which the loop's
// near misses keep tracked. Only a passing run's trace hash is left out;
// a failing run keeps it. On a kubelet family with a mutant (failures)
// and on a VK family.
func TestLeanLoopIsTheLoop(t *testing.T) {
	for _, c := range []struct{ family, mutant string }{{"update-storm", "B2"}, {"vk-startup", ""}} {
		f := familyNamed(c.family)
		var outs [2][]Outcome
		var corpora [2]*Corpus
		for i, lean := range []bool{false, true} {
			corpora[i] = NewCorpus(f.Name)
			Loop(context.Background(), f, corpora[i], Options{Seed: 3, Runs: 40, Parallel: 2,
				Check: run.CheckOptions{Mutant: c.mutant, Lean: lean}}, func(o Outcome) { outs[i] = append(outs[i], o) })
		}
		failed := 0
		for k, full := range outs[0] {
			want := full
			if !full.Result.Failed() {
				want.Result.TraceSHA = ""
			} else {
				failed++
			}
			got := outs[1][k]
			got.Took, want.Took = 0, 0
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%s run %d: Lean loop's outcome differs:\n%+v\nfull:\n%+v", c.family, k, got, want)
			}
		}
		if string(corpusBytes(t, corpora[0])) != string(corpusBytes(t, corpora[1])) || corpora[1].Tuples() == 0 {
			t.Fatalf("%s: Lean loop's corpus differs from the full loop's (or has no tuples)", c.family)
		}
		if c.mutant != "" && failed == 0 {
			t.Fatalf("%s %s: no run failed: the failing runs' hashes were not compared", c.family, c.mutant)
		}
	}
}
