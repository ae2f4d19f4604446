package check

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/podsim/podsim/model"
	"github.com/podsim/podsim/model/ops"
)

// TestWitnessIsStricter: markers pin the take, so an update that arrived
// after it is not what SyncPod may receive; without markers it may be.
func TestWitnessIsStricter(t *testing.T) {
	a, a2 := pod("a", 1), pod("a", 2)
	list := []ops.Op{do(upd(ops.Create, a)), do(ops.WorkerStep{UID: "a"}), do(upd(ops.Update, a2)), do(beginSync("a", ops.Update, 2))}
	if ok, at, why := Replay(list); ok || at != 3 || !strings.Contains(why, "v2, the update taken has v1") {
		t.Errorf("witness: ok=%v at %d: %s", ok, at, why)
	}
	if ok, _, why := Replay(withoutMarkers(list)); !ok {
		t.Errorf("closure: %s", why)
	}
	// The marker pinned the take, and only a recorded failed status read
	// (ops.StatusReadFailed) ends a pass without its call: Next cannot
	// undo the take either.
	if _, err := model.Next(mustRun(t, list[:3]...), list[3].Input, nil); err == nil || !strings.Contains(err.Error(), "v2, the update taken has v1") {
		t.Errorf("Next (closure mode) with a marker: got %v, want the take of v1 pinned", err)
	}
	failed := append(slices.Clone(list[:2]), do(ops.StatusReadFailed{UID: "a"}), do(ops.WorkerStep{UID: "a"}), list[2], do(ops.WorkerStep{UID: "a"}), list[3])
	if ok, at, why := Replay(failed); !ok {
		t.Errorf("witness, the first pass's status read failed: rejected at %d: %s", at, why)
	}
}

// TestWitnessGeneratedHistories: histories recorded with markers are
// accepted in witness mode, and without markers by Replay and porcupine.
func TestWitnessGeneratedHistories(t *testing.T) {
	for seed := range uint64(8) {
		list := newWitnessGen(seed, 20).run(400)
		if ok, at, why := Replay(list); !ok {
			t.Fatalf("seed %d: witness Replay rejected at %d: %s", seed, at, why)
		}
		bare := withoutMarkers(list)
		if ok, at, why := Replay(bare); !ok {
			t.Fatalf("seed %d: Replay without markers rejected at %d: %s", seed, at, why)
		}
		for _, h := range [][]ops.Op{list, bare} { // porcupine ignores markers
			if res, _ := Check(toPorcupine(seq(h...)), 30*time.Second); res != porcupine.Ok {
				t.Fatalf("seed %d: porcupine %v", seed, res)
			}
		}
	}
}

// TestWitnessAgreesOnMutants: witness mode never accepts what the closure
// rejects — it only restricts where hidden steps happen — on histories
// corrupted at one observation or one marker. It may reject what the closure
// accepts (a query answered as if the worker had already acknowledged, a
// lost marker); porcupine then decides.
func TestWitnessAgreesOnMutants(t *testing.T) {
	list := newWitnessGen(42, 6).run(200)
	stricter, both := 0, 0
	for i := range list {
		for variant := range 3 {
			mutant := slices.Clone(list)
			switch {
			case variant == 0 && mutate(&mutant[i]):
			case variant == 1 && isWorkerStep(list[i].Input):
				mutant = slices.Delete(mutant, i, i+1) // a lost marker
			case variant == 2 && !isWorkerStep(list[i].Input):
				mutant = slices.Insert(mutant, i, ops.Op{Input: ops.WorkerStep{UID: ops.UIDOf(list[i].Input)}}) // a spurious one
			default:
				continue
			}
			witnessOK, _, why := Replay(mutant)
			closureOK, _, _ := Replay(withoutMarkers(mutant))
			if witnessOK && !closureOK {
				t.Fatalf("op %d variant %d: witness accepted what the closure rejects", i, variant)
			}
			switch {
			case !witnessOK && closureOK:
				stricter++
			case !witnessOK:
				both++
				if why == "" {
					t.Fatalf("op %d: rejected without a reason", i)
				}
			}
		}
	}
	if stricter == 0 || both == 0 {
		t.Fatalf("rejected only in witness mode %d, by both %d: want some of each", stricter, both)
	}
	t.Logf("mutants rejected only in witness mode %d, by both %d", stricter, both)
}

// TestPartitionDropsMarkers: porcupine never sees WorkerStep.
func TestPartitionDropsMarkers(t *testing.T) {
	list := newWitnessGen(3, 5).run(100)
	for _, part := range Partition(toPorcupine(seq(list...))) {
		for _, op := range part {
			if isWorkerStep(op.Input.(ops.Input)) {
				t.Fatal("a marker reached porcupine")
			}
		}
	}
	if got := ops.Describe(ops.WorkerStep{UID: "a"}, nil); got != "worker/a step" {
		t.Errorf("Describe: %q", got)
	}
}
