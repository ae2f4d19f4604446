package run

import (
	"fmt"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/oracle"
)

// handout hands each event of a run to the observers that read it (fo's
// list for its kind). Every observer reads the event through the pointer
// the world hands out (world.World.ObserveEvent: its own memory), with no
// copy, which is sound because no event is sent while another is being
// handed out (an observer sends nothing): deliver stops the run if one is,
// as the next event would overwrite the one the later observers read.
// Only an audited run copies the event, to compare it after every
// observer has read it (audit).
type handout struct {
	fo      *fanout
	obs     *observers
	view    oracle.View
	known   *history.KnownFromHistory // an observable-only run's (else nil)
	audited bool
	slow    bool          // known or audited: every event takes deliverAll
	busy    bool          // an event is being handed out
	own     history.Event // the event as rewritten by known
	copied  history.Event // an audited run's copy
}

// observer is the world's observer (world.World.ObserveEvent): it hands
// each event out. Most events take its short path, with the fan-out loop
// in the function the world calls; the rest (a nested event, an
// observable-only or audited run, a restart) deliverAll.
func (h *handout) observer() func(*history.Event) {
	return func(ev *history.Event) {
		if h.busy || h.slow || ev.Kind == history.Restarted {
			h.deliverAll(ev)
			return
		}
		if ev.Kind != history.Noted {
			h.obs.epochs.lastAt = ev.At
		}
		h.busy = true
		for _, o := range h.fo.of[ev.Kind] { // send's loop, here: one call fewer an event
			o.Observe(h.view, ev)
		}
		h.busy = false
	}
}

// deliverAll hands out any event (observer's long path).
func (h *handout) deliverAll(ev *history.Event) {
	if h.busy {
		panic(fmt.Sprintf("run: event %d (%v) was sent while another was being handed out: an observer sent it, which world.World.ObserveEvent forbids",
			ev.Seq, ev.Kind))
	}
	h.busy = true
	if h.known != nil {
		h.own = h.known.Rewrite(*ev)
		ev = &h.own
	}
	switch ev.Kind {
	case history.Restarted: // the next epoch's oracles from now on
		h.obs.epochs.restart()
		h.fo.setFrom(h.obs)
	case history.Noted:
	default:
		h.obs.epochs.lastAt = ev.At
	}
	if h.audited {
		h.copied = *ev
		h.fo.send(h.view, &h.copied)
		audit(&h.copied, *ev)
	} else {
		h.fo.send(h.view, ev)
	}
	h.busy = false
}

// send hands ev to the observers that read its kind.
func (f *fanout) send(v oracle.View, ev *history.Event) {
	for _, o := range f.of[ev.Kind] {
		o.Observe(v, ev)
	}
}

// slot is where the VK world's observer (judgeVK) hands each event to the
// oracles from:
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
