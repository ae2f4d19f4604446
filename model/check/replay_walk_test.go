package check

import (
	"fmt"
	"slices"
	"testing"

	"github.com/podsim/podsim/model"
	"github.com/podsim/podsim/model/ops"
)

// TestReplayWalkAgreesWithOpOrder: Replay walks the parts one after the
// other; the reference below steps the history op by op, every part at
// once (as Replay did before). On generated histories with and without
// markers, legal and corrupted (one or two observations changed, a marker
// lost or added, two operations swapped, a SyncKnownPods result emptied so
// that several parts reject it at once), both give the same ok, failedAt
// and reason.
func TestReplayWalkAgreesWithOpOrder(t *testing.T) {
	if testing.Short() {
		t.Skip("-short (make race): one goroutine compares two replays, so -race has nothing to find " +
			"(TestConcurrentChecks runs Replay concurrently); make test runs it")
	}
	histories, rejected := 0, 0
	for seed := range uint64(16) {
		list := newWitnessGen(seed, 2+int(seed%7)).run(120)
		forEachCorruption(list, 3, func(i, variant int, mutant []ops.Op) {
			for _, history := range [][]ops.Op{mutant, withoutMarkers(mutant)} {
				if len(history) > 80 && !slices.ContainsFunc(history, func(op ops.Op) bool { return isWorkerStep(op.Input) }) {
					history = history[:80] // closure mode is slower: a shorter history
				}
				histories++
				got, want := replayOf(Replay(history)), replayOf(replayOpOrder(history))
				if got != want {
					t.Fatalf("seed %d corruption %d/%d: Replay %+v, op order %+v", seed, i, variant, got, want)
				}
				if !got.ok {
					rejected++
				}
			}
		})
	}
	if rejected == 0 || rejected == histories {
		t.Fatalf("%d of %d histories rejected: want some accepted and some rejected", rejected, histories)
	}
	t.Logf("%d histories, %d rejected", histories, rejected)
}

// replayed is what a replay returns: ok, failedAt and reason.
type replayed struct {
	ok  bool
	at  int
	why string
}

func replayOf(ok bool, failedAt int, reason string) replayed { return replayed{ok, failedAt, reason} }

// forEachCorruption calls f with list itself and with each corruption of
// it (corrupt) at every stride-th operation.
func forEachCorruption(list []ops.Op, stride int, f func(i, variant int, mutant []ops.Op)) {
	for i := -1; i < len(list); i += stride {
		for variant := range 5 {
			if mutant, ok := corrupt(list, i, variant); ok {
				f(i, variant, mutant)
			}
		}
	}
}

// corrupt returns list changed at i by variant (i < 0: list itself), and
// whether that variant applies there.
func corrupt(list []ops.Op, i, variant int) ([]ops.Op, bool) {
	mutant := slices.Clone(list)
	switch {
	case i < 0:
		return mutant, variant == 0
	case variant == 0:
		return mutant, mutate(&mutant[i])
	case variant == 1 && isWorkerStep(list[i].Input):
		return slices.Delete(mutant, i, i+1), true
	case variant == 2 && i+1 < len(list):
		mutant[i], mutant[i+1] = mutant[i+1], mutant[i]
		return mutant, true
	case variant == 3:
		_, known := list[i].Input.(ops.SyncKnownPods)
		if known {
			mutant[i].Output = ops.KnownPods{}
		}
		return mutant, known && len(list[i].Output.(ops.KnownPods)) > 1
	case variant == 4 && i+5 < len(list): // two corruptions: the first in history order counts
		a, b := mutate(&mutant[i]), mutate(&mutant[i+5])
		return mutant, a && b
	}
	return nil, false
}

// replayOpOrder is the reference for Replay: the history op by op, each
// operation stepped in its part (a SyncKnownPods in every part that owns
// UIDs, in part order, stopping at the first part that rejects it).
func replayOpOrder(list []ops.Op) (ok bool, failedAt int, reason string) {
	plan := planPartitions(list)
	var r replayer
	if slices.ContainsFunc(list, func(op ops.Op) bool { return isWorkerStep(op.Input) }) {
		r.startWitness(plan.parts)
	} else {
		r.closed = make([]model.ClosedSet, plan.parts)
		for p := range r.closed {
			r.closed[p] = model.InitialClosedSet()
		}
	}
	var split knownSplit
	for i, op := range list {
		var err error
		if p := plan.partOf[i]; p != broadcast {
			err = r.step(p, &model.PartOp{In: op.Input, Out: op.Output})
		} else {
			split.split(&plan, op)
			for q, owns := range plan.owns {
				if owns && err == nil {
					in, kept := split.part(q)
					err = r.step(q, &model.PartOp{Restricted: true, Desired: in.Desired, Kept: kept})
				}
			}
		}
		if err != nil {
			return false, i, fmt.Sprintf("op %d %q: %v", i, ops.Describe(op.Input, op.Output), err)
		}
	}
	return true, -1, ""
}

// TestWitnessSearchOutOfSteps: when walkFast runs out of steps it leaves
// the part to walkExact, which must give the same verdict. With almost no
// steps allowed (64 per part, histories of 300 operations over few pods),
// every long part takes that way; Replay's results stay the same.
func TestWitnessSearchOutOfSteps(t *testing.T) {
	histories, rejected := 0, 0
	for seed := range uint64(8) {
		list := newWitnessGen(seed+100, 2+int(seed%3)).run(300)
		forEachCorruption(list, 11, func(i, variant int, mutant []ops.Op) {
			histories++
			var kit replayKit
			kit.replayer.detours = -1 // 64 steps per part
			got, want := replayOf(kit.replay(mutant)), replayOf(Replay(mutant))
			if got != want {
				t.Fatalf("seed %d corruption %d/%d: out of steps %+v, Replay %+v", seed, i, variant, got, want)
			}
			if !got.ok {
				rejected++
			}
		})
	}
	if rejected == 0 || rejected == histories {
		t.Fatalf("%d of %d histories rejected: want some accepted and some rejected", rejected, histories)
	}
	t.Logf("%d histories, %d rejected", histories, rejected)
}

// TestWholeWalkIsThePartsVerdict: Replay first walks a marked history
// unpartitioned (walkWhole), which is stricter than the parts. A whole
// path found must mean the parts have one too, or the shortcut would pass
// a history Replay rejects. On generated histories, legal and corrupted
// as above, whenever walkWhole finds a path the reference over the parts
// (replayOpOrder) accepts; and some corrupted histories it rejects, so the
// comparison is not empty. It fails when walkWhole leaves out a kind of
// operation (a SyncKnownPods, say) or accepts a rejected step.
func TestWholeWalkIsThePartsVerdict(t *testing.T) {
	histories, whole, rejected := 0, 0, 0
	for seed := range uint64(24) {
		list := newWitnessGen(seed+300, 2+int(seed%7)).run(120)
		forEachCorruption(list, 2, func(i, variant int, mutant []ops.Op) {
			histories++
			var kit replayKit
			kit.replayer.detours = 3
			wholeOK := kit.replayer.walkWhole(mutant, &kit.all)
			partsOK, at, why := replayOpOrder(mutant)
			if wholeOK && !partsOK {
				t.Fatalf("seed %d corruption %d/%d: the whole walk passes a history the parts reject at %d: %s",
					seed, i, variant, at, why)
			}
			switch {
			case wholeOK:
				whole++
			case !partsOK:
				rejected++
			}
		})
	}
	if whole == 0 || rejected == 0 {
		t.Fatalf("%d histories: %d passed whole, %d rejected by the parts: want some of each", histories, whole, rejected)
	}
	t.Logf("%d histories: %d passed whole, %d rejected by the parts", histories, whole, rejected)
}
