package sim

import (
	"iter"
	"runtime"
	"sync"
)

// Carriers: the runtime coroutines simulated goroutines run on.
//
// A coroutine starts on a small stack and grows it, copying it each time,
// as the code it runs goes deeper: made fresh for every simulated
// goroutine of every seed, that growth was about a tenth of a sweep's CPU.
// A carrier is a coroutine that runs one simulated goroutine after
// another. When one has exited (its body returned or panicked, or Close
// unwound it), its carrier becomes idle, keeping its grown stack, and
// waits in the process's list of idle carriers for the next Go of any
// scheduler: a sweep's seeds run on the carriers of the seeds before.
//
// An idle carrier holds nothing of a run (no scheduler, no goroutine, no
// function), so nothing of one run reaches another: what a goroutine does
// depends on its function and its scheduler alone, never on the carrier
// it runs on (TestCarriersCarryNothing). After each garbage collection the
// list ends the carriers that stayed idle since the one before, so idle
// carriers never pile up and a process that stops simulating keeps none
// (TestIdleCarriersEnd). A carrier whose goroutine is in runtime.Goexit
// (Close finishes it) is never idle, nor is one whose goroutine was stuck
// in a hot loop: if it ever leaves the loop, it blocks for good (abandon,
// watchdog.go). A carrier is also what a watched segment's driver loop
// runs on (run).

// carrier is one coroutine and what it is to run next.
type carrier struct {
	next func() (struct{}, bool) // iter.Pull's next: resume the coroutine
	stop func()                  // iter.Pull's stop: end an idle carrier

	// The simulated goroutine to run when next resumed, set by carry and
	// cleared by the carrier when it starts running it.
	s *Scheduler
	g *goroutine
	f func()
}

// run is the carrier's coroutine: run the goroutine it was given, become
// idle, and wait for the next one. It ends when stopped while idle.
// A carrier given a scheduler and no goroutine is a watched segment's
// driver instead (watchdog.go): Run's goroutine puts it back once it has
// yielded.
func (c *carrier) run(yield func(struct{}) bool) {
	for c.s != nil {
		s, g, f := c.s, c.g, c.f
		c.s, c.g, c.f = nil, nil, nil
		if g == nil {
			s.driveSegment(yield)
		} else {
			g.yield = yield
			s.trampoline(g, f) // returns once g has exited (not in a Goexit)
			if s.hot.Load() {
				abandon() // the run was abandoned: nothing may touch it
			}
			// Whoever resumed c puts it in the idle list once it has
			// yielded (released): another run's Go may take it from there
			// at once, on another thread, and must find it suspended.
			s.freed = c
		}
		if !yield(struct{}{}) {
			return
		}
	}
}

// released puts the carrier whose goroutine has just exited, if any, in
// the idle list. The driver and Close call it after every resume.
func (s *Scheduler) released() {
	if c := s.freed; c != nil {
		s.freed = nil
		s.carriers.put(c)
	}
}

// carry makes g's coroutine: an idle carrier or a new one. g starts when
// the driver first resumes it.
func (s *Scheduler) carry(g *goroutine, f func()) {
	c := s.carriers.take()
	c.s, c.g, c.f = s, g, f
	g.resume = c.next
}

// carrierList holds idle carriers, the most recently idle last. Every
// scheduler uses idleCarriers (tests make lists of their own).
type carrierList struct {
	mu    sync.Mutex
	idle  []*carrier
	low   int  // the fewest idle since the last trim: idle[:low] stayed idle
	armed bool // a trim is due after the next garbage collection
}

var idleCarriers carrierList

// take returns an idle carrier, or a new one.
func (l *carrierList) take() *carrier {
	l.mu.Lock()
	n := len(l.idle)
	if n == 0 {
		l.mu.Unlock()
		c := &carrier{}
		c.next, c.stop = iter.Pull(c.run)
		return c
	}
	c := l.idle[n-1]
	l.idle[n-1] = nil
	l.idle = l.idle[:n-1]
	l.low = min(l.low, n-1)
	l.mu.Unlock()
	return c
}

// put adds a carrier that has just become idle.
func (l *carrierList) put(c *carrier) {
	l.mu.Lock()
	l.idle = append(l.idle, c)
	if !l.armed {
		l.arm()
	}
	l.mu.Unlock()
}

// trimSentinel is an object nothing references: its cleanup runs after the
// first garbage collection that follows its allocation.
type trimSentinel struct{ _ *byte }

// arm makes the next garbage collection trim the list (l.mu held).
func (l *carrierList) arm() {
	l.armed, l.low = true, len(l.idle)
	runtime.AddCleanup(&trimSentinel{}, (*carrierList).trim, l)
}

// trim ends the carriers that stayed idle since the last trim, and arms
// the next one while any carrier is left idle.
func (l *carrierList) trim() {
	l.mu.Lock()
	stale := make([]*carrier, l.low)
	copy(stale, l.idle)
	n := copy(l.idle, l.idle[len(stale):])
	clear(l.idle[n:])
	l.idle = l.idle[:n]
	l.armed = false
	if n > 0 {
		l.arm()
	}
	l.mu.Unlock()
	for _, c := range stale {
		c.stop()
	}
}
