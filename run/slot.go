package run

import (
	"fmt"

	"github.com/podsim/podsim/history"
)

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

// spent is what an audited run (CheckOptions.audit) leaves in an event
// every oracle has read: no event has its Seq.
var spent = history.Event{Seq: -1}

// audit checks that p, every oracle having read it, is still the event
// was that was handed out, then overwrites it (spent), so an oracle that
// kept the pointer reads another event from then on. The comparison is of
// the event's own fields, as %#v prints them (a pointer or a func by its
// address): what an oracle's write to the event would change.
func audit(p *history.Event, was history.Event) {
	if now, then := fmt.Sprintf("%#v", *p), fmt.Sprintf("%#v", was); now != then {
		panic(fmt.Sprintf("run: an oracle wrote event %d (%v) while reading it: the Observe contract (oracle.Oracle) is broken: %s, was %s",
			was.Seq, was.Kind, now, then))
	}
	*p = spent
}
