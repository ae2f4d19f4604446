package run

import "github.com/podsim/podsim/history"

// slot is where a run's observer hands each event to the oracles from:
// the event is copied once, into the slot, and every oracle reads it
// through one pointer (oracle.Oracle.Observe), instead of a copy of it
// for each. An event delivered while another is still being handed out
// (none is: no oracle makes the target emit) gets a copy of its own, so
// the one being handed out is never overwritten.
type slot struct {
	ev   history.Event
	busy bool
}

// take is where ev is handed out from until give: the slot's event, or a
// copy of its own while the slot's is out.
func (s *slot) take(ev history.Event) *history.Event {
	if s.busy {
		p := new(history.Event)
		*p = ev
		return p
	}
	s.ev, s.busy = ev, true
	return &s.ev
}

// give ends the handing out of p (take's).
func (s *slot) give(p *history.Event) {
	if p == &s.ev {
		s.busy = false
	}
}
