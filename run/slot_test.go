package run

import (
	"fmt"
	"strings"
	"testing"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/oracle"
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

// sender breaks world.World.ObserveEvent's contract: reading its first
// event, it has another sent (the handout's observer, as the world would).
type sender struct {
	deliver func(*history.Event)
	sent    bool
}

func (s *sender) Observe(_ oracle.View, ev *history.Event) {
	if !s.sent {
		s.sent = true
		s.deliver(&history.Event{Seq: ev.Seq + 1})
	}
}

// TestHandoutStopsAnEventSentWhileOneIsOut: the handout hands out the
// world's own event, so an event sent by an observer would overwrite the
// one the later observers read; it stops the run instead. It fails when
// the observer hands the nested event out.
func TestHandoutStopsAnEventSentWhileOneIsOut(t *testing.T) {
	var fo fanout
	s := &sender{}
	fo.set([]listed{{o: s, kinds: everyKind}})
	h := &handout{fo: &fo, obs: &observers{epochs: &epochOracles{}}}
	s.deliver = h.observer()
	defer func() {
		if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "was sent while another was being handed out") {
			t.Fatalf("a nested event: recovered %v, want the handout's panic", r)
		}
	}()
	s.deliver(&history.Event{Seq: 1})
}
