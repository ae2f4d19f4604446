package check

import (
	"slices"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/podsim/podsim/model/ops"
)

// TestCheckMarkedIsWitnessMode: on a history of points in one order (seq),
// porcupine has no order to search, so PorcupineMarkedModel must give
// exactly Replay's witness-mode verdict — on generated histories and on
// mutants corrupted at one observation, or with a marker lost or added,
// which both accept and reject.
func TestCheckMarkedIsWitnessMode(t *testing.T) {
	list := newWitnessGen(42, 6).run(200)
	accepted, rejected := 0, 0
	for i := range list {
		for variant := range 4 {
			mutant := slices.Clone(list)
			switch {
			case variant == 0:
			case variant == 1 && mutate(&mutant[i]):
			case variant == 2 && isWorkerStep(list[i].Input):
				mutant = slices.Delete(mutant, i, i+1)
			case variant == 3 && !isWorkerStep(list[i].Input):
				mutant = slices.Insert(mutant, i, ops.Op{Input: ops.WorkerStep{UID: ops.UIDOf(list[i].Input)}})
			default:
				continue
			}
			witnessOK, _, _ := Replay(mutant)
			res, _ := CheckMarked(toPorcupine(seq(mutant...)), 30*time.Second)
			if (res == porcupine.Ok) != witnessOK {
				t.Fatalf("op %d variant %d: CheckMarked %v, witness Replay ok=%v", i, variant, res, witnessOK)
			}
			if witnessOK {
				accepted++
			} else {
				rejected++
			}
		}
	}
	if accepted == 0 || rejected == 0 {
		t.Fatalf("accepted %d, rejected %d: want some of each", accepted, rejected)
	}
	t.Logf("accepted %d, rejected %d", accepted, rejected)
}

// TestCheckMarkedGeneratedHistories: larger generated histories with
// markers are Ok, and PartitionMarked keeps each marker in its UID's part.
func TestCheckMarkedGeneratedHistories(t *testing.T) {
	for seed := range uint64(4) {
		list := newWitnessGen(seed, 20).run(400)
		if res, _ := CheckMarked(toPorcupine(seq(list...)), 30*time.Second); res != porcupine.Ok {
			t.Fatalf("seed %d: CheckMarked %v", seed, res)
		}
		markers := 0
		for _, part := range PartitionMarked(toPorcupine(seq(list...))) {
			for _, op := range part {
				if isWorkerStep(op.Input.(ops.Input)) {
					markers++
				}
			}
		}
		if want := len(list) - len(withoutMarkers(list)); markers != want {
			t.Fatalf("seed %d: %d markers in the parts, want %d", seed, markers, want)
		}
	}
}
