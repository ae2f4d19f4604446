package model

import (
	"fmt"
	"slices"
	"testing"

	"github.com/podsim/podsim/model/ops"
)

// TestSetEquality: porcupine's cache compares closed sets by hash, then by
// members in any order; Equal and Hash agree on copies of a state.
func TestSetEquality(t *testing.T) {
	states := mustRun(t, do(upd(ops.Create, pod("a", 1))), do(upd(ops.Kill, pod("a", 1))))
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
	if !a.Same(b) || a.hash != b.hash {
		t.Error("the same members in another order are a different set")
	}
	c := newClosedSet(nodesOf(states[1:]))
	d := newClosedSet(nodesOf(append(states[1:], NewState())))
	if a.Same(c) || a.Same(d) {
		t.Error("different members compare equal")
	}
	if s, ok := states[0].Record("a"); !ok || s.UID != "a" {
		t.Error("Record(a) missing")
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

// TestArenaFullNames: an arena's full names are ops.Pod.FullName's, each
// made once and then shared (a name asked again allocates nothing), for
// names of one length that differ only in the name or the namespace, and
// past arenaNames (made anew, still right). It fails when a name kept is
// handed out for another pod's.
func TestArenaFullNames(t *testing.T) {
	a := new(recordArena)
	pods := []ops.Pod{{Name: "a", Namespace: "default"}, {Name: "b", Namespace: "default"},
		{Name: "a", Namespace: "defaulu"}, {Name: "a_", Namespace: "efault"}, {Name: "", Namespace: "a_default"}}
	for i := range 2 * arenaNames {
		pods = append(pods, ops.Pod{Name: fmt.Sprintf("p%d", i), Namespace: "default"})
	}
	for round := range 2 {
		for i := range pods {
			if got, want := a.fullName(&pods[i]), pods[i].FullName(); got != want {
				t.Fatalf("round %d: fullName(%+v) = %q, want %q", round, pods[i], got, want)
			}
		}
	}
	if n := testing.AllocsPerRun(10, func() { a.fullName(&pods[1]) }); n != 0 {
		t.Errorf("a name made before allocates %v times, want 0", n)
	}
}
