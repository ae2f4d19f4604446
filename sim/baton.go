package sim

import "fmt"

// The baton: how the one simulated goroutine that may run hands control to
// the next. Each simulated goroutine is a real goroutine parked on its own
// baton; at a scheduling point the running one picks the next runnable
// goroutine (through the strategy), hands it the baton and parks, so that
// exactly one runs at any time (scheduler.go has the public API).

func (s *Scheduler) trampoline(g *goroutine, f func()) {
	g.awaitBaton()
	if s.unwinding {
		g.state = gExited
		s.exitAck <- struct{}{}
		return
	}
	defer s.exited(g)
	f()
}

// exited runs as the last deferred call of every simulated goroutine.
func (s *Scheduler) exited(g *goroutine) {
	r := recover()
	g.state = gExited
	if s.unwinding {
		s.exitAck <- struct{}{}
		return
	}
	s.live--
	s.removeRunnable(g)
	if r != nil {
		if _, ok := r.(unwind); !ok {
			s.err = &PanicError{Goroutine: g.name, Value: r, Stack: stack(), At: s.Elapsed(), Steps: s.steps}
			s.rec(opPanic, -1, 0)
			s.finish()
			return
		}
	}
	s.rec(opExit, -1, 0)
	if next := s.nextRunnable(); next != nil {
		s.cur = nil
		s.handTo(next)
		return
	}
	s.finish()
}

// awaitBaton parks the real goroutine until it is handed the baton; during
// Close it unwinds instead of returning. Its name is how HotLoopError tells
// parked goroutines from the stuck one in a stack dump.
//
//go:noinline
func (g *goroutine) awaitBaton() {
	<-g.wake
}

// handTo gives the baton to g, which must be waiting in awaitBaton.
func (s *Scheduler) handTo(g *goroutine) {
	s.cur = g
	s.handoffs++
	s.baton.Store(s.handoffs<<batonIDBits | uint64(g.id))
	g.wake <- struct{}{}
}

// point is a scheduling point: count it, enforce the step bound, and let the
// strategy hand the baton to another runnable goroutine.
func (s *Scheduler) point() {
	if s.unwinding {
		return
	}
	if !s.running || s.cur == nil {
		panic("sim: a simulation operation was called outside a running simulated goroutine")
	}
	s.steps++
	g := s.cur
	if s.steps > s.opts.MaxSteps {
		s.err = &LimitError{Kind: "steps", Steps: s.steps - 1, At: s.Elapsed(), Goroutine: g.name,
			Detail: fmt.Sprintf("more than %d scheduling points", s.opts.MaxSteps)}
		s.suspend(g)
	}
	s.picker.stepped(s.steps, g)
	next := s.picker.pick(g, s.runnable)
	if next != g {
		s.switchTo(g, next)
	}
}

// switchTo hands the baton from the running goroutine prev to next and parks
// prev (still runnable) until it is chosen again.
func (s *Scheduler) switchTo(prev, next *goroutine) {
	s.handTo(next)
	prev.awaitBaton()
	s.resumed()
}

// resumed runs in a goroutine that got the baton back.
func (s *Scheduler) resumed() {
	if s.unwinding {
		panic(unwind{})
	}
}

// park blocks the running goroutine on (op, obj) until something makes it
// runnable again, running others (and advancing the clock) meanwhile.
func (s *Scheduler) park(op op, obj int32) {
	g := s.cur
	if s.unwinding {
		panic(unwind{})
	}
	g.state = gParked
	g.waitOp, g.waitObj = op, obj
	s.removeRunnable(g)
	switch next := s.nextRunnable(); next {
	case nil: // the segment is over; a later one resumes g once it is runnable
		s.suspend(g)
	case g: // woken by a timer as the clock advanced
	default:
		s.handTo(next)
		g.awaitBaton()
		s.resumed()
	}
	g.waitOp, g.waitObj, g.mu = opNone, -1, nil
}

// suspend ends the current segment and parks g until a later segment
// hands it the baton, or Close unwinds it.
func (s *Scheduler) suspend(g *goroutine) {
	s.finish()
	g.awaitBaton()
	s.resumed()
}

// nextRunnable chooses the next goroutine when the current one cannot go
// on, advancing the clock to the earliest timer while nothing is runnable.
// It returns nil when the run is over (s.err may say why).
func (s *Scheduler) nextRunnable() *goroutine {
	for len(s.runnable) == 0 {
		if s.err != nil {
			return nil
		}
		at, ok := s.clock.Next()
		if !ok || (s.horizon >= 0 && at.Sub(s.epoch) > s.horizon) {
			return nil
		}
		if at.Sub(s.epoch) > s.opts.MaxTime {
			s.err = &LimitError{Kind: "time", Steps: s.steps, At: s.Elapsed(),
				Detail: fmt.Sprintf("next timer at %v is past the %v bound", at.Sub(s.epoch), s.opts.MaxTime)}
			return nil
		}
		// Every timer due now has this deadline: it is the earliest.
		s.elapsed = at.Sub(s.epoch)
		s.recAs(-1, opAdvance, -1, int64(s.elapsed))
		s.clock.AdvanceTo(at)
	}
	return s.picker.pick(nil, s.runnable)
}

// finish ends the segment and hands its result to Run. It must be the last
// thing a simulated goroutine does to shared state before parking or
// exiting.
func (s *Scheduler) finish() {
	s.done <- s.segmentResult()
}

// segmentResult judges the end of a segment: errors and Halt end the run
// for good; Run (unbounded horizon) also judges whether what is left parked
// is a deadlock.
func (s *Scheduler) segmentResult() error {
	if s.err == nil && s.horizon < 0 && !s.halted {
		s.err = s.deadlock()
	}
	if s.err != nil || s.halted {
		s.over = true
	}
	return s.err
}

func (s *Scheduler) makeRunnable(g *goroutine) {
	g.state = gRunnable
	i := len(s.runnable)
	s.runnable = append(s.runnable, g)
	for i > 0 && s.runnable[i-1].id > g.id {
		s.runnable[i] = s.runnable[i-1]
		i--
	}
	s.runnable[i] = g
}

func (s *Scheduler) removeRunnable(g *goroutine) {
	for i, r := range s.runnable {
		if r == g {
			s.runnable = append(s.runnable[:i], s.runnable[i+1:]...)
			return
		}
	}
}

// unwind is the panic value Close uses to unwind parked goroutines.
type unwind struct{}
