package sim

import "fmt"

// The baton: how the one simulated goroutine that may run hands control to
// the next. Each simulated goroutine runs on a runtime coroutine
// (iter.Pull; a carrier, carrier.go, which trampoline runs it on); a
// driver loop (drive) resumes the holder of the baton, and at a
// scheduling point the holder picks the next runnable goroutine (through
// the strategy) and records it as the holder. Resuming a coroutine nests
// (the resumer waits in the call until the resumed one yields back), so
// the coroutines resumed and not yet yielded form a chain, the driver at
// its bottom: the old holder resumes the new one itself when it is not in
// the chain (one switch), and yields down to it when it is (one switch
// per link; awaitBaton). Every switch is on one OS thread, with no Go
// scheduler in between, instead of a channel send and receive between two
// goroutines (doc.go, Cost, has the numbers). scheduler.go has the public
// API; watchdog.go runs the loop and watches it.

func (s *Scheduler) trampoline(g *goroutine, f func()) {
	if s.unwinding { // Close before it ever ran
		g.state = gExited
		return
	}
	defer s.exited(g)
	f()
	g.returned = true
}

// exited runs as the last deferred call of every simulated goroutine. Its
// carrier then becomes idle and yields back to the driver, which resumes
// whoever exited handed the baton to.
func (s *Scheduler) exited(g *goroutine) {
	// A body that returned has no panic to recover: recover() is skipped
	// then, as it walks the stack (a few hundred instructions) to check
	// that a deferred call made it. A panicking or Goexiting body has not
	// returned.
	var r any
	if !g.returned {
		r = recover()
	}
	if s.hot.Load() {
		abandon() // it got stuck, and the run was abandoned
	}
	g.state = gExited
	if r == nil && !g.returned {
		// runtime.Goexit (t.FailNow, say): let it finish only once Close
		// reaps it, so that it does not end the driver's goroutine too.
		defer s.zombie(g)
	}
	if s.unwinding {
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
	if s.halted { // g called End and returned: the run is over, and Halt's trace has no exit
		return
	}
	s.rec(opExit, -1, 0)
	if next := s.nextRunnable(); next != nil {
		s.cur = nil
		s.handTo(next)
		return
	}
	s.finish()
}

// zombie parks a goroutine that is in runtime.Goexit. iter.Pull passes a
// Goexit on to whoever resumes the coroutine, so the driver must not see
// it: the coroutine yields instead of ending, and Close finishes it from a
// goroutine of its own (reap).
func (s *Scheduler) zombie(g *goroutine) {
	s.zombies = append(s.zombies, g)
	g.awaitBaton(s)
}

// reap lets a zombie's Goexit finish, on a goroutine that may exit with it.
func reap(g *goroutine) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		g.resume()
	}()
	<-done
}

// awaitBaton suspends g until it holds the baton again (or Close unwinds
// it). Resuming a coroutine nests: the resumer waits in the call until the
// one it resumed yields back. So the goroutines resumed and not yet
// yielded form a chain, the driver at its bottom and the one running at
// its top (chained marks them), and a handoff need not go through the
// driver: g resumes the new holder itself if it is not in the chain (one
// switch), and yields otherwise (one switch per link), as it does once the
// segment is over; whoever its yield returns to looks again. Every
// coroutine below the top waits here, resuming the one above it, so its
// name is how HotLoopError tells the waiting goroutines from the stuck one
// in a stack dump.
func (g *goroutine) awaitBaton(s *Scheduler) {
	for !s.unwinding {
		if s.ended {
			g.yield(struct{}{})
			continue
		}
		h := s.cur
		if h == g {
			return
		}
		if h.chained {
			g.yield(struct{}{})
			continue
		}
		s.resumeHolder(h)
	}
}

// resumeHolder resumes h, the holder of the baton, and returns once it
// has yielded (or exited) back to the caller, the coroutine under it in
// the chain (or the driver).
func (s *Scheduler) resumeHolder(h *goroutine) {
	h.chained = true
	h.resume()
	h.chained = false
	if s.freed != nil {
		s.released()
	}
}

// handTo makes g the holder of the baton; the driver resumes it once the
// current holder has yielded (or, at the start of a segment, right away).
// With the watchdog on it publishes the handoff to it with an atomic swap
// (on amd64 the same locked instruction as a store), skipped when nothing
// watches; finding the watcher's claim in the word it replaced, the caller
// has lost the run to the watcher and blocks for good (watchdog.go).
func (s *Scheduler) handTo(g *goroutine) {
	s.cur = g
	s.handoffs++
	if s.opts.HotLoop >= 0 {
		if old := s.baton.Swap(s.handoffs<<batonIDBits | uint64(g.id)); old&hotBit != 0 {
			s.baton.Store(old)
			abandon()
		}
	}
}

// drive is the driver loop: it resumes the holder of the baton until the
// segment ends. The holder hands the baton on itself (awaitBaton); control
// comes back here when the one the driver resumed has exited or the
// segment is over.
func (s *Scheduler) drive() error {
	for !s.ended {
		s.resumeHolder(s.cur)
	}
	s.ended = false
	return s.result
}

// point is a scheduling point: count it, enforce the step bound, and let the
// strategy hand the baton to another runnable goroutine, suspending the
// current one (still runnable) until it is chosen again. It is the hot
// path of every simulation, kept to the decision and the switch.
func (s *Scheduler) point() {
	if s.unwinding {
		return
	}
	if s.hot.Load() {
		abandon() // a goroutine that got stuck left its loop: the run is over
	}
	g := s.cur
	if !s.running || g == nil {
		panic("sim: a simulation operation was called outside a running simulated goroutine")
	}
	s.steps++
	if s.steps > s.opts.MaxSteps {
		s.tooManySteps(g)
	}
	next := g
	if !s.walk {
		next = s.picker.pick(s.steps, g, s.runnable)
	} else if n := len(s.runnable); n > 1 {
		next = walkChoice(s.src.Intn(n), g, s.runnable)
	}
	if next != g {
		s.handTo(next)
		g.awaitBaton(s)
		s.resumed()
	}
}

// tooManySteps ends the run with a LimitError at g's scheduling point; g
// stays suspended until Close unwinds it.
func (s *Scheduler) tooManySteps(g *goroutine) {
	s.err = &LimitError{Kind: "steps", Steps: s.steps - 1, At: s.Elapsed(), Goroutine: g.name,
		Detail: fmt.Sprintf("more than %d scheduling points", s.opts.MaxSteps)}
	s.suspend(g)
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
		g.awaitBaton(s)
		s.resumed()
	}
	g.waitOp, g.waitObj, g.mu = opNone, -1, nil
}

// suspend ends the current segment and suspends g until a later segment
// hands it the baton, or Close unwinds it.
func (s *Scheduler) suspend(g *goroutine) {
	s.finish()
	g.awaitBaton(s)
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
		// The clock's epoch is s.epoch: its offsets are virtual times since it.
		at, ok := s.clock.NextOffset()
		if !ok || (s.horizon >= 0 && at > s.horizon) {
			return nil
		}
		if at > s.opts.MaxTime {
			s.err = &LimitError{Kind: "time", Steps: s.steps, At: s.Elapsed(),
				Detail: fmt.Sprintf("next timer at %v is past the %v bound", at, s.opts.MaxTime)}
			return nil
		}
		// Every timer due now has this deadline: it is the earliest.
		s.setElapsed(at)
		s.recAs(-1, opAdvance, -1, int64(s.elapsed))
		s.clock.AdvanceToOffset(at)
	}
	if s.walk { // walk.pick's choice without a current goroutine, without its call
		if n := len(s.runnable); n > 1 {
			return s.runnable[s.src.Intn(n)]
		}
		return s.runnable[0]
	}
	return s.picker.pick(0, nil, s.runnable)
}

// finish ends the segment with its result; the driver returns it to Run
// once the calling goroutine has yielded or exited. It must be the last
// thing a simulated goroutine does to shared state before either.
func (s *Scheduler) finish() {
	s.result = s.segmentResult()
	s.ended = true
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
	s.runnable = without(s.runnable, g)
}

// without is list without g (list itself, shortened, when g is in it),
// and deleteAt is list without its i-th goroutine: slices.Delete's result
// (its tail's last slot left as it was), by a plain loop over a list of a
// few goroutines rather than a memmove call.
func without(list []*goroutine, g *goroutine) []*goroutine {
	for i, r := range list {
		if r == g {
			return deleteAt(list, i)
		}
	}
	return list
}

func deleteAt(list []*goroutine, i int) []*goroutine {
	for ; i+1 < len(list); i++ {
		list[i] = list[i+1]
	}
	return list[:len(list)-1]
}

// unwind is the panic value Close uses to unwind parked goroutines.
type unwind struct{}
