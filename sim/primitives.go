package sim

import (
	"fmt"
	"time"
)

// Mutex is a simulated sync.Locker. Lock and Unlock are scheduling points;
// a released mutex goes straight to one waiter, chosen by the strategy
// (under a random walk, choice 0 is the longest waiting).
type Mutex struct {
	s       *Scheduler
	id      int32
	holder  *goroutine
	waiters []*goroutine
	first   [2]*goroutine // the array waiters begins in: most mutexes have two waiters at most
}

// NewMutex returns a mutex called name.
func (s *Scheduler) NewMutex(name string) *Mutex {
	m := &Mutex{}
	s.InitMutex(m, name)
	return m
}

// InitMutex makes m a mutex called name, as NewMutex does: for a Mutex
// inside a value of the caller's, one allocation for both.
func (s *Scheduler) InitMutex(m *Mutex, name string) {
	*m = Mutex{s: s, id: s.object(kindMutex, name)}
	m.waiters = m.first[:0]
}

// Lock acquires m, parking the caller while another goroutine holds it.
// Locking a mutex the caller already holds panics (it would deadlock).
func (m *Mutex) Lock() {
	s := m.s
	s.point()
	g := s.cur
	if m.holder == nil {
		m.holder = g
		s.rec(opLock, m.id, 0)
		return
	}
	if m.holder == g {
		panic(fmt.Sprintf("sim: %s locks %s, which it already holds", g.name, s.objects[m.id].name))
	}
	s.rec(opLockWait, m.id, int64(m.holder.id))
	m.waiters = append(m.waiters, g)
	g.mu = m
	s.park(opLock, m.id)
}

// Unlock releases m. As with sync.Mutex, any goroutine may unlock it;
// unlocking an unlocked mutex panics.
func (m *Mutex) Unlock() {
	s := m.s
	if s.unwinding {
		m.holder = nil
		return
	}
	s.point()
	if m.holder == nil {
		panic(fmt.Sprintf("sim: %s unlocks %s, which is not locked", s.cur.name, s.objects[m.id].name))
	}
	if len(m.waiters) == 0 {
		m.holder = nil
		s.rec(opUnlock, m.id, -1)
		return
	}
	i := 0
	if len(m.waiters) > 1 {
		i = s.picker.pickWaiter(m.waiters)
	}
	w := m.waiters[i]
	m.waiters = deleteAt(m.waiters, i)
	m.holder = w
	s.rec(opUnlock, m.id, int64(w.id))
	s.makeRunnable(w)
}

// Signal is a 1-slot wake-up, the simulated `chan struct{}` of capacity 1:
// Notify never blocks and at most one wake-up is pending.
type Signal struct {
	s       *Scheduler
	id      int32
	pending bool
	closed  bool
	waiters []*goroutine
	first   [1]*goroutine // the array waiters is in while one waits at most
}

// NewSignal returns a signal called name.
func (s *Scheduler) NewSignal(name string) *Signal {
	sg := &Signal{}
	s.InitSignal(sg, name)
	return sg
}

// InitSignal makes sg a signal called name, as NewSignal does: for a
// Signal inside a value of the caller's, one allocation for both.
func (s *Scheduler) InitSignal(sg *Signal, name string) {
	*sg = Signal{s: s, id: s.object(kindSignal, name)}
	sg.waiters = sg.first[:0]
}

// Notify makes a wake-up pending (a no-op if one is), or hands it to the
// longest waiting goroutine. Notify after Close panics, like a send on a
// closed channel.
func (sg *Signal) Notify() {
	s := sg.s
	s.point()
	if sg.closed {
		panic(fmt.Sprintf("sim: %s notifies %s, which is closed", s.cur.name, s.objects[sg.id].name))
	}
	s.rec(opNotify, sg.id, 0)
	if len(sg.waiters) == 0 {
		sg.pending = true
		return
	}
	w := sg.waiters[0]
	sg.waiters = sg.waiters[1:]
	if len(sg.waiters) == 0 {
		sg.waiters = sg.first[:0] // not the empty end of an array: the next wait appends in place
	}
	w.result = true
	s.makeRunnable(w)
}

// Wait consumes a pending wake-up (true), or parks until one arrives (true)
// or the signal is closed (false).
func (sg *Signal) Wait() bool {
	s := sg.s
	s.point()
	if sg.pending {
		sg.pending = false
		s.rec(opWait, sg.id, 1)
		return true
	}
	if sg.closed {
		s.rec(opWait, sg.id, 0)
		return false
	}
	s.rec(opWaitBlock, sg.id, 0)
	g := s.cur
	sg.waiters = append(sg.waiters, g)
	s.park(opWait, sg.id)
	s.rec(opWait, sg.id, boolArg(g.result))
	return g.result
}

// TryWait consumes a pending wake-up without blocking.
func (sg *Signal) TryWait() bool {
	s := sg.s
	s.point()
	got := sg.pending
	sg.pending = false
	s.rec(opTryWait, sg.id, boolArg(got))
	return got
}

// Close closes the signal and wakes every waiter with false. Closing twice
// panics, like closing a closed channel.
func (sg *Signal) Close() {
	s := sg.s
	if s.unwinding {
		sg.closed = true
		return
	}
	s.point()
	if sg.closed {
		panic(fmt.Sprintf("sim: %s closes %s, which is already closed", s.cur.name, s.objects[sg.id].name))
	}
	sg.closed = true
	s.rec(opClose, sg.id, 0)
	for _, w := range sg.waiters {
		w.result = false
		s.makeRunnable(w)
	}
	sg.waiters = sg.first[:0]
}

// Event fires once and stays fired: a closed channel.
type Event struct {
	s       *Scheduler
	id      int32
	fired   bool
	waiters []*goroutine
	first   [1]*goroutine // the array waiters begins in: most events have one waiter at most
}

// NewEvent returns an event called name.
func (s *Scheduler) NewEvent(name string) *Event {
	e := &Event{}
	s.InitEvent(e, name)
	return e
}

// InitEvent makes e an event called name, as NewEvent does: for an Event
// inside a value of the caller's, one allocation for both.
func (s *Scheduler) InitEvent(e *Event, name string) {
	*e = Event{s: s, id: s.object(kindEvent, name)}
	e.waiters = e.first[:0]
}

// Fire fires the event and wakes every waiter. Firing twice panics, like
// closing a closed channel.
func (e *Event) Fire() {
	s := e.s
	if s.unwinding {
		e.fired = true
		return
	}
	s.point()
	if e.fired {
		panic(fmt.Sprintf("sim: %s fires %s, which has already fired", s.cur.name, s.objects[e.id].name))
	}
	e.fired = true
	s.rec(opFire, e.id, 0)
	for _, w := range e.waiters {
		if w.timer != nil {
			w.timer.Stop()
			w.timer, w.timeoutOf = nil, nil
		}
		w.result = true
		s.makeRunnable(w)
	}
	e.waiters = nil
}

// Fired reports whether the event has fired. It is a scheduling point: a
// goroutine polling for cancellation races with the one cancelling.
func (e *Event) Fired() bool {
	s := e.s
	s.point()
	s.rec(opFired, e.id, boolArg(e.fired))
	return e.fired
}

// Wait parks the caller until the event fires.
func (e *Event) Wait() {
	e.WaitFor(-1)
}

// WaitFor parks the caller until the event fires (true) or d of virtual
// time has passed (false). A negative d waits without a timeout; d == 0
// only polls.
func (e *Event) WaitFor(d time.Duration) bool {
	s := e.s
	s.point()
	if e.fired || d == 0 {
		s.rec(opEventWait, e.id, boolArg(e.fired))
		return e.fired
	}
	g := s.cur
	s.rec(opEventBlock, e.id, int64(d))
	e.waiters = append(e.waiters, g)
	if d > 0 {
		s.armAlarm(g, d, e)
	}
	s.park(opEventWait, e.id)
	s.rec(opEventWait, e.id, boolArg(g.result))
	return g.result
}

func (e *Event) removeWaiter(g *goroutine) { e.waiters = without(e.waiters, g) }

func boolArg(b bool) int64 {
	if b {
		return 1
	}
	return 0
}
