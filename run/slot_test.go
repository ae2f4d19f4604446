package run

import (
	"testing"

	"github.com/podsim/podsim/history"
)

// TestSlotKeepsTheEventHandedOut: an event delivered while another is
// being handed out gets a copy of its own, and the slot's event is reused
// once given back. It fails when take always hands out the slot's event
// (the nested event overwrites the outer one) and when give frees the
// slot for a pointer that is not the slot's.
func TestSlotKeepsTheEventHandedOut(t *testing.T) {
	var s slot
	put := func(p *history.Event, seq int64) *history.Event {
		*p = history.Event{Seq: seq}
		return p
	}
	p := put(s.take(), 1)
	q := put(s.take(), 2) // delivered while p is out
	if p.Seq != 1 || q.Seq != 2 || p == q {
		t.Fatalf("nested take: outer %d, inner %d, shared %v; want 1, 2, false", p.Seq, q.Seq, p == q)
	}
	s.give(q)
	r := put(s.take(), 3) // p is still out
	if p.Seq != 1 || r == p {
		t.Fatalf("after the inner event was given back: outer %d, shared %v; want 1, false", p.Seq, r == p)
	}
	s.give(r)
	s.give(p)
	if u := put(s.take(), 4); u != &s.ev || u.Seq != 4 {
		t.Fatalf("after every event was given back: got %p (seq %d), want the slot's %p (seq 4)", u, u.Seq, &s.ev)
	}
}
