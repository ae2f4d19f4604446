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

// take is where the next event is handed out from until give, the
// caller to copy it there: the slot's event, or an event of its own while
// the slot's is out.
func (s *slot) take() *history.Event {
	if s.busy {
		return new(history.Event)
	}
	s.busy = true
	return &s.ev
}

// give ends the handing out of p (take's).
func (s *slot) give(p *history.Event) {
	if p == &s.ev {
		s.busy = false
	}
}
