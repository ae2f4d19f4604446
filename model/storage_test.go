package model

import (
	"fmt"
	"slices"
	"testing"

	"github.com/anishathalye/porcupine"
)

// TestStatesAreImmutable: states share their arrays copy-on-write, and
// closure lends record arrays from an arena it reuses; neither may ever
// change a state that a step returned. Every state of every closed set along
// generated histories (closure and witness mode, porcupine's step) must read
// the same at the end as when it was made.
func TestStatesAreImmutable(t *testing.T) {
	type seen struct {
		s    State
		desc string
	}
	var all []seen
	remember := func(states ...State) {
		for _, s := range states {
			all = append(all, seen{s, DescribeState(s) + "|" + describeFired(s)})
		}
	}
	for _, ops := range [][]Op{newGenerator(5, 6).run(300), withoutMarkers(newWitnessGen(5, 6).run(300))} {
		for _, part := range Partition(toPorcupine(seq(ops...))) {
			set := newClosedSet(initialSet())
			for i, op := range part {
				next := set.next(op.Input.(Input), asOutput(op.Output))
				if next == nil {
					t.Fatalf("op %d rejected", i)
				}
				for _, n := range next.nodes {
					remember(n.s)
				}
				set = next
			}
		}
		var exported []State
		for _, op := range ops[:100] {
			exported = append(exported, NewState())
			if next, err := Step(exported[len(exported)-1], op.Input, op.Output); err == nil {
				remember(next...)
			}
		}
	}
	for _, x := range all {
		if got := DescribeState(x.s) + "|" + describeFired(x.s); got != x.desc {
			t.Fatalf("a state changed after it was returned:\nwas %s\nnow %s", x.desc, got)
		}
	}
	t.Logf("%d states checked", len(all))
}

func describeFired(s State) string {
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
	ops := []Op{do(upd(Create, a)), do(WorkerStep{UID: "a"}), do(beginSync("a", Create, 1)), do(end("a", SyncPod, OK)), do(WorkerStep{UID: "a"})}
	for v := 2; v < 50; v++ {
		ops = append(ops, do(upd(Update, pod("a", v))), do(WorkerStep{UID: "a"}),
			do(beginSync("a", Update, v)), do(end("a", SyncPod, OK)), do(WorkerStep{UID: "a"}), op(q(IsPodTerminationRequested, "a"), no))
	}
	allocs := testing.AllocsPerRun(20, func() {
		if ok, at, why := Replay(ops); !ok {
			t.Fatalf("rejected at %d: %s", at, why)
		}
	})
	if allocs > 40 {
		t.Errorf("%.0f allocations for %d operations; want a fixed handful", allocs, len(ops))
	}
}

// TestSetEquality: porcupine's cache compares closed sets by hash, then by
// members in any order; Equal and Hash agree on copies of a state.
func TestSetEquality(t *testing.T) {
	states := mustRun(t, do(upd(Create, pod("a", 1))), do(upd(Kill, pod("a", 1))))
	if len(states) < 3 {
		t.Fatalf("want a few states, got %d", len(states))
	}
	a := newClosedSet(nodesOf(states))
	reversed := make([]State, len(states))
	for i, s := range states {
		reversed[len(states)-1-i] = s
		c := s.clone()
		if !c.Equal(s) || c.Hash() != s.Hash() {
			t.Fatalf("a copy of %s differs", DescribeState(s))
		}
	}
	b := newClosedSet(nodesOf(reversed))
	if !a.equal(b) || a.hash != b.hash {
		t.Error("the same members in another order are a different set")
	}
	c := newClosedSet(nodesOf(states[1:]))
	d := newClosedSet(nodesOf(append(states[1:], NewState())))
	if a.equal(c) || a.equal(d) {
		t.Error("different members compare equal")
	}
	if s, ok := states[0].Record("a"); !ok || s.UID != "a" {
		t.Error("Record(a) missing")
	}
}

// TestUnknownDesiredUID: SyncKnownPods may desire a UID that no other
// operation names; no part owns it.
func TestUnknownDesiredUID(t *testing.T) {
	ops := []Op{do(upd(Create, pod("a", 1))), op(skp("a", "ghost"), KnownPods{{"a", SyncWork, false, true, false}})}
	if ok, at, why := Replay(ops); !ok {
		t.Fatalf("rejected at %d: %s", at, why)
	}
	parts := Partition(toPorcupine(seq(ops...)))
	if len(parts) != 1 || len(parts[0]) != 2 {
		t.Fatalf("parts %v", parts)
	}
}

// TestConcurrentChecks: states are shared between porcupine's goroutines
// and between checks; nothing a check does may write to them (run with
// -race).
func TestConcurrentChecks(t *testing.T) {
	ops := newWitnessGen(9, 8).run(200)
	history := toPorcupine(seq(withoutMarkers(ops)...))
	start := mustRun(t, do(upd(Create, pod("a", 1))))
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
				if ok, at, why := Replay(ops); !ok {
					done <- fmt.Sprintf("Replay rejected at %d: %s", at, why)
					return
				}
			default:
				if _, err := Next(start, beginSync("a", Create, 1), nil); err != nil {
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

// TestForkKeepsWaitListsApart: after a fork the state that owned its wait
// lists appends to them in place, past what the second outcome sees, and
// the second outcome copies before it writes (then owns its copy): each
// sees only its own joins.
func TestForkKeepsWaitListsApart(t *testing.T) {
	var s State
	s.claim()
	for _, uid := range []string{"a", "b", "c"} { // room for a fourth in place
		s.appendWaiting("web_ns", uid)
	}
	var spare State
	alt := s.forkInto(&spare)
	s.appendWaiting("web_ns", "d")
	alt.appendWaiting("web_ns", "e")
	alt.appendWaiting("web_ns", "f")
	s.dropWaiting("web_ns", 1)
	s.appendWaiting("web_ns", "g")
	if got, want := s.waitingStatic("web_ns"), []string{"b", "c", "d", "g"}; !slices.Equal(got, want) {
		t.Errorf("first outcome's list %v, want %v", got, want)
	}
	if got, want := alt.waitingStatic("web_ns"), []string{"a", "b", "c", "e", "f"}; !slices.Equal(got, want) {
		t.Errorf("second outcome's list %v, want %v", got, want)
	}
	if s.own&ownLists == 0 || alt.own&ownLists == 0 {
		t.Errorf("ownership of lists: first %v, second %v; want both (the second after its copy)", s.own&ownLists != 0, alt.own&ownLists != 0)
	}
}
