package check

import (
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/podsim/podsim/model"
	"github.com/podsim/podsim/model/ops"
)

// TestGeneratedHistoriesAreLegal: histories produced by driving the model are
// accepted by Replay and by porcupine.
func TestGeneratedHistoriesAreLegal(t *testing.T) {
	for seed := range uint64(8) {
		list := newGenerator(seed, 20).run(400)
		if ok, at, why := Replay(list); !ok {
			t.Fatalf("seed %d: Replay rejected at %d: %s", seed, at, why)
		}
		if res, _ := Check(toPorcupine(seq(list...)), 30*time.Second); res != porcupine.Ok {
			t.Fatalf("seed %d: porcupine %v", seed, res)
		}
	}
}

// TestReplayAgreesWithPorcupineOnMutants: in a sequential history the only
// linearization is the given order, so Replay and porcupine must agree
// exactly — also on histories corrupted at one operation.
func TestReplayAgreesWithPorcupineOnMutants(t *testing.T) {
	list := newGenerator(42, 6).run(150)
	rejected := 0
	for i := range list {
		mutant := append([]ops.Op{}, list...)
		if !mutate(&mutant[i]) {
			continue
		}
		ok, _, _ := Replay(mutant)
		res, _ := Check(toPorcupine(seq(mutant...)), 30*time.Second)
		if ok != (res == porcupine.Ok) {
			t.Fatalf("op %d %s: Replay ok=%v, porcupine %v", i, ops.Describe(mutant[i].Input, mutant[i].Output), ok, res)
		}
		if !ok {
			rejected++
		}
	}
	if rejected == 0 {
		t.Fatal("no mutant was rejected")
	}
	t.Logf("%d mutants rejected", rejected)
}

// mutate corrupts one observation; false if the op has nothing to corrupt.
func mutate(o *ops.Op) bool {
	switch in := o.Input.(type) {
	case ops.Query:
		o.Output = !o.Output.(ops.Answer)
	case ops.SyncBegin:
		in.Version++
		o.Input = in
	case ops.SyncEnd:
		in.Fn = ops.SyncTerminatedPod + ops.SyncPod - in.Fn
		o.Input = in
	case ops.SyncKnownPods:
		known := o.Output.(ops.KnownPods)
		if len(known) == 0 {
			return false
		}
		o.Output = known[1:]
	default:
		return false
	}
	return true
}

func BenchmarkStep(b *testing.B) {
	states := model.Closure([]model.State{model.NewState()})
	states, _ = model.Next(states, upd(ops.Create, pod("a", 1)), nil)
	in := q(ops.CouldHaveRunningContainers, "a")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := model.Step(states[0], in, yes); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCheck: porcupine over a generated 1,000-operation sequential
// history of 20 pods.
func BenchmarkCheck(b *testing.B) {
	history := toPorcupine(seq(newGenerator(1, 20).run(1000)...))
	model := PorcupineModel()
	b.ReportAllocs()
	for b.Loop() {
		if !porcupine.CheckOperations(model, history) {
			b.Fatal("generated history rejected")
		}
	}
}

// BenchmarkReplay: the witness fast path over the same history.
func BenchmarkReplay(b *testing.B) {
	list := newGenerator(1, 20).run(1000)
	b.ReportAllocs()
	for b.Loop() {
		if ok, at, why := Replay(list); !ok {
			b.Fatalf("rejected at %d: %s", at, why)
		}
	}
}
