package model

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
)

// TestWorkerStepSemantics: a marker applies whichever worker critical
// section the record enables; several are all kept; none changes nothing.
func TestWorkerStepSemantics(t *testing.T) {
	a := pod("a", 1)
	w := WorkerStep{UID: "a"}
	witness := func(ops ...Op) []State { // Replay's witness mode on one part
		r := replayer{witness: true, parts: [][]State{{{}}}}
		for i, o := range ops {
			if err := r.step(0, &partOp{in: o.Input, out: o.Output}); err != nil {
				t.Fatalf("op %d %s: %v", i, Describe(o.Input, o.Output), err)
			}
		}
		return withViewsAll(r.parts[0])
	}
	describeAll := func(states []State) string {
		var out []string
		for _, s := range states {
			out = append(out, describeA(s))
		}
		return strings.Join(out, " | ")
	}
	rows := []struct {
		name string
		ops  []Op
		want string
	}{
		{"unknown UID: nothing", []Op{do(w)}, ""},
		{"pending: take", []Op{do(upd(Create, a)), do(w)}, "a S grace=- pending=- flight=SyncPod(taken)"},
		{"nothing pending: nothing", []Op{do(upd(Create, a)), do(w), do(beginSync("a", Create, 1)), do(end("a", SyncPod, OK)), do(w), do(w)},
			"a S grace=- pending=-"},
		{"in a callback: nothing", []Op{do(upd(Create, a)), do(w), do(beginSync("a", Create, 1)), do(w)},
			"a S grace=- pending=- flight=SyncPod(begun)"},
		{"after an ack: only the abort branch survives", []Op{do(upd(Kill, a)), do(w), do(w), do(w)}, "a TR grace=30 pending=-"},
		{"after a SyncPod take: abort", []Op{do(upd(Create, a)), do(w), do(w)}, "a S grace=- pending=-"},
		{"after a terminating take: abort or ack", []Op{do(upd(Kill, a)), do(w), do(w)},
			"a TR grace=30 pending=- | a T grace=30 pending=- flight=SyncTerminatingPod(taken)"},
		{"runtime-only take: ack", []Op{do(runtimeKill("a")), do(w), do(w)},
			"a T deleted runtime grace=1 pending=- flight=SyncTerminatingRuntimePod(taken)"},
		{"returned: complete", []Op{do(upd(Kill, a)), do(w), do(w), do(beginTerminating("a", 1, 30)), do(end("a", SyncTerminatingPod, OK)), do(w)},
			"a D grace=30 pending=sync@v1"},
		{"static waiter: nothing", []Op{do(upd(Create, staticPod("b", "web", 1))), do(upd(Create, staticPod("a", "web", 1))), do(w)},
			"a P static grace=- pending=create@v1"},
	}
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			if got := describeAll(witness(row.ops...)); got != row.want {
				t.Errorf("got  %q\nwant %q", got, row.want)
			}
		})
	}
	// A marker is a critical section: not while an obligation is due, and it
	// closes an idle worker's cancellation window.
	inFlight := witness(do(upd(Create, a)), do(w), do(beginSync("a", Create, 1)), do(upd(Kill, a)))
	if _, err := Step(inFlight[0], w, nil); err == nil || !strings.Contains(err.Error(), "cancel/a must happen first") {
		t.Errorf("marker while a cancel is due: %v", err)
	}
	idleKill := witness(do(upd(Create, a)), do(w), do(beginSync("a", Create, 1)), do(end("a", SyncPod, OK)), do(w), do(upd(Kill, a)))
	next, err := Step(idleKill[0], w, nil)
	if err != nil || len(next[0].MayCancel) != 0 {
		t.Errorf("marker after an idle kill: may-cancel %v, %v", next[0].MayCancel, err)
	}
}

// TestWitnessIsStricter: markers pin the take, so an update that arrived
// after it is not what SyncPod may receive; without markers it may be.
func TestWitnessIsStricter(t *testing.T) {
	a, a2 := pod("a", 1), pod("a", 2)
	ops := []Op{do(upd(Create, a)), do(WorkerStep{UID: "a"}), do(upd(Update, a2)), do(beginSync("a", Update, 2))}
	if ok, at, why := Replay(ops); ok || at != 3 || !strings.Contains(why, "v2, the update taken has v1") {
		t.Errorf("witness: ok=%v at %d: %s", ok, at, why)
	}
	if ok, _, why := Replay(withoutMarkers(ops)); !ok {
		t.Errorf("closure: %s", why)
	}
	if _, err := Next(mustRun(t, ops[:3]...), ops[3].Input, nil); err != nil {
		t.Errorf("Next (closure mode) with a marker: %v", err)
	}
}

// TestWitnessGeneratedHistories: histories recorded with markers are
// accepted in witness mode, and without markers by Replay and porcupine.
func TestWitnessGeneratedHistories(t *testing.T) {
	for seed := range uint64(8) {
		ops := newWitnessGen(seed, 20).run(400)
		if ok, at, why := Replay(ops); !ok {
			t.Fatalf("seed %d: witness Replay rejected at %d: %s", seed, at, why)
		}
		bare := withoutMarkers(ops)
		if ok, at, why := Replay(bare); !ok {
			t.Fatalf("seed %d: Replay without markers rejected at %d: %s", seed, at, why)
		}
		for _, h := range [][]Op{ops, bare} { // porcupine ignores markers
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
	ops := newWitnessGen(42, 6).run(200)
	stricter, both := 0, 0
	for i := range ops {
		for variant := range 3 {
			mutant := slices.Clone(ops)
			switch {
			case variant == 0 && mutate(&mutant[i]):
			case variant == 1 && isWorkerStep(ops[i].Input):
				mutant = slices.Delete(mutant, i, i+1) // a lost marker
			case variant == 2 && !isWorkerStep(ops[i].Input):
				mutant = slices.Insert(mutant, i, Op{Input: WorkerStep{UID: uidOf(ops[i].Input)}}) // a spurious one
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
	ops := newWitnessGen(3, 5).run(100)
	for _, part := range Partition(toPorcupine(seq(ops...))) {
		for _, op := range part {
			if isWorkerStep(op.Input.(Input)) {
				t.Fatal("a marker reached porcupine")
			}
		}
	}
	if got := Describe(WorkerStep{UID: "a"}, nil); got != "worker/a step" {
		t.Errorf("Describe: %q", got)
	}
}
