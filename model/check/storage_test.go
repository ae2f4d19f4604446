package check

import (
	"fmt"
	"testing"

	"github.com/anishathalye/porcupine"
	"github.com/podsim/podsim/model"
	"github.com/podsim/podsim/model/ops"
)

// TestStatesAreImmutable: states share their arrays copy-on-write, and
// closure lends record arrays from an arena it reuses; neither may ever
// change a state that a step returned. Every state of every closed set along
// generated histories (closure and witness mode, porcupine's step) must read
// the same at the end as when it was made.
func TestStatesAreImmutable(t *testing.T) {
	type seen struct {
		s    model.State
		desc string
	}
	var all []seen
	remember := func(states ...model.State) {
		for _, s := range states {
			all = append(all, seen{s, model.DescribeState(s) + "|" + describeFired(s)})
		}
	}
	for _, list := range [][]ops.Op{newGenerator(5, 6).run(300), withoutMarkers(newWitnessGen(5, 6).run(300))} {
		for _, part := range Partition(toPorcupine(seq(list...))) {
			start := model.InitialClosedSet()
			set := &start // porcupine's step (PorcupineModel)
			for i, op := range part {
				next, _ := set.Next(&model.PartOp{In: op.Input.(ops.Input), Out: asOutput(op.Output)})
				if next == nil {
					t.Fatalf("op %d rejected", i)
				}
				remember(next.States()...)
				set = next
			}
		}
		var exported []model.State
		for _, op := range list[:100] {
			exported = append(exported, model.NewState())
			if next, err := model.Step(exported[len(exported)-1], op.Input, op.Output); err == nil {
				remember(next...)
			}
		}
	}
	for _, x := range all {
		if got := model.DescribeState(x.s) + "|" + describeFired(x.s); got != x.desc {
			t.Fatalf("a state changed after it was returned:\nwas %s\nnow %s", x.desc, got)
		}
	}
	t.Logf("%d states checked", len(all))
}

func describeFired(s model.State) string {
	out := ""
	for _, id := range s.Fired {
		out += string(rune('0' + id%10))
	}
	for _, e := range s.WaitingStatic {
		for _, u := range e.UIDs {
			out += "," + u
		}
	}
	return out
}

// TestWitnessWritesInPlace: in witness mode a part's state owns its arrays
// after the first write, so a long run stops allocating records.
func TestWitnessWritesInPlace(t *testing.T) {
	a := pod("a", 1)
	list := []ops.Op{do(upd(ops.Create, a)), do(ops.WorkerStep{UID: "a"}), do(beginSync("a", ops.Create, 1)), do(end("a", ops.SyncPod, ops.OK)), do(ops.WorkerStep{UID: "a"})}
	for v := 2; v < 50; v++ {
		list = append(list, do(upd(ops.Update, pod("a", v))), do(ops.WorkerStep{UID: "a"}),
			do(beginSync("a", ops.Update, v)), do(end("a", ops.SyncPod, ops.OK)), do(ops.WorkerStep{UID: "a"}), op(q(ops.IsPodTerminationRequested, "a"), no))
	}
	allocs := testing.AllocsPerRun(20, func() {
		if ok, at, why := Replay(list); !ok {
			t.Fatalf("rejected at %d: %s", at, why)
		}
	})
	if allocs > 40 {
		t.Errorf("%.0f allocations for %d operations; want a fixed handful", allocs, len(list))
	}
}

// TestUnknownDesiredUID: SyncKnownPods may desire a UID that no other
// operation names; no part owns it.
func TestUnknownDesiredUID(t *testing.T) {
	list := []ops.Op{do(upd(ops.Create, pod("a", 1))), op(skp("a", "ghost"), ops.KnownPods{{UID: "a", State: ops.SyncWork, Orphan: false, HasConfig: true, Static: false}})}
	if ok, at, why := Replay(list); !ok {
		t.Fatalf("rejected at %d: %s", at, why)
	}
	parts := Partition(toPorcupine(seq(list...)))
	if len(parts) != 1 || len(parts[0]) != 2 {
		t.Fatalf("parts %v", parts)
	}
}

// TestConcurrentChecks: states are shared between porcupine's goroutines
// and between checks; nothing a check does may write to them (run with
// -race).
func TestConcurrentChecks(t *testing.T) {
	list := newWitnessGen(9, 8).run(200)
	history := toPorcupine(seq(withoutMarkers(list)...))
	start := mustRun(t, do(upd(ops.Create, pod("a", 1))))
	done := make(chan string, 8)
	for i := range 8 {
		go func() {
			switch {
			case i%3 == 0:
				if !porcupine.CheckOperations(PorcupineModel(), history) {
					done <- "porcupine rejected"
					return
				}
			case i%3 == 1:
				if ok, at, why := Replay(list); !ok {
					done <- fmt.Sprintf("Replay rejected at %d: %s", at, why)
					return
				}
			default:
				if _, err := model.Next(start, beginSync("a", ops.Create, 1), nil); err != nil {
					done <- err.Error()
					return
				}
			}
			done <- ""
		}()
	}
	for range 8 {
		if msg := <-done; msg != "" {
			t.Error(msg)
		}
	}
}
