package sim

import (
	"sync"
	"time"
)

// Running a segment with the hot-loop watchdog on (Options.HotLoop >= 0).
//
// A coroutine runs on its resumer's OS thread until it yields, so whoever
// resumes the simulated goroutines is suspended while one runs and cannot
// watch it; and Run must return a HotLoopError even though the holder of
// the baton never yields. So Run's goroutine does not drive the segment
// itself: it resumes a driver, a carrier (carrier.go) running the driver
// loop, and stays suspended in the driver's coroutine until the segment
// ends. The driver registers the segment with the process's one watcher
// goroutine, which looks at the baton word of every registered segment a
// few times per bound. A segment whose word has not moved for the bound
// is claimed: the watcher sets the word's hot bit with a compare-and-swap
// and starts a rescuer, a goroutine that calls the driver's yield. A
// coroutine switch may be made from any goroutine (the runtime's coro is
// a channel that always has one goroutine blocked on it), so this switches
// Run's goroutine back in, as if the driver had yielded, and the rescuer
// takes its place, blocked in the driver's coroutine for good. Run's
// goroutine finds the segment rescued and returns the HotLoopError.
//
// The claim is exclusive. Every handoff (handTo) and the driver's end of
// the segment swap the word; whoever finds the hot bit in what it swapped
// out lost the run to the watcher and blocks for good (abandon) instead of
// going on, so nothing but the rescuer ever switches Run's goroutine back.
// The driver registers the segment only once Run's goroutine is suspended
// in its coroutine and unregisters it only after its swap at the end, so a
// claimed segment always has Run's goroutine there to switch back.
//
// The rescuer's switch comes from another thread: Run's goroutine must not
// be locked to its thread (runtime.LockOSThread), as a carrier made by a
// locked goroutine could not be resumed by another one either.
//
// Per segment this costs two coroutine switches and four uncontended lock
// operations (BenchmarkSegment): no goroutine, channel, timer or wake-up
// of another thread. The watchdog before this one started the driver on a
// goroutine of its own per segment, with a ticker and a channel send back:
// two wake-ups of an idle P's thread per segment, which cost a sweep's
// lane more CPU than the rest of the watchdog put together. The watcher
// runs while segments do and ends when none has run for two of its ticks.

// segment runs the simulation until nothing is runnable within horizon
// (negative: unbounded) or the run ends, and returns the result: on the
// caller's goroutine with the watchdog off, on a watched driver with it on.
func (s *Scheduler) segment(horizon time.Duration) error {
	if s.hotErr != nil {
		return s.hotErr
	}
	if s.running {
		panic("sim: Run called from inside the simulation")
	}
	if s.over {
		return s.err
	}
	s.running, s.horizon = true, horizon
	first := s.nextRunnable()
	if first == nil {
		s.running = false
		return s.segmentResult()
	}
	s.handTo(first)
	if s.opts.HotLoop < 0 {
		err := s.drive() // Run's goroutine drives
		s.running = false
		return err
	}
	err := s.segmentWatched()
	if _, hot := err.(*HotLoopError); hot {
		s.hotErr = err
		return err
	}
	s.running = false
	return err
}

// Close unwinds every goroutine that has not exited (each panics out of the
// operation it is parked in, running its deferred calls), so sweeping many
// seeds in one process leaks nothing (their carriers become idle, for the
// next run: carrier.go). It is a no-op after a HotLoopError: the stuck
// goroutine still runs and cannot be stopped.
func (s *Scheduler) Close() {
	if s.unwinding || s.hot.Load() {
		return
	}
	s.unwinding, s.mute = true, true
	for _, g := range s.all {
		if g.state == gExited {
			continue
		}
		if g.timer != nil {
			g.timer.Stop()
		}
		g.resume()
		s.released()
	}
	for _, z := range s.zombies {
		reap(z)
	}
	s.zombies = nil
}

// hotBit marks a baton word the watcher has claimed.
const hotBit = 1 << 63

// segmentWatched runs a segment on a driver while the watcher watches it.
// It returns the segment's result, or the HotLoopError of a rescue.
func (s *Scheduler) segmentWatched() error {
	d := s.carriers.take()
	d.s = s // no goroutine: the carrier drives s's segment (driveSegment)
	d.next()
	if b := s.rescued; b != 0 {
		s.hot.Store(true)
		// The stuck goroutine still runs: read only what it cannot change.
		g := s.all[b&(1<<batonIDBits-1)]
		return &HotLoopError{Goroutine: g.name, Bound: s.opts.HotLoop,
			Handoffs: int64((b &^ hotBit) >> batonIDBits), Stack: holderStack()}
	}
	s.carriers.put(d) // it has yielded: idle
	return s.result
}

// driveSegment is what a driver carrier runs: the driver loop, watched.
// Run's goroutine is suspended in the carrier's coroutine meanwhile, and
// the carrier yields to it when driveSegment returns.
func (s *Scheduler) driveSegment(yield func(struct{}) bool) {
	s.driverYield = yield
	watcher.add(s)
	s.result = s.drive()
	s.handoffs++
	if old := s.baton.Swap(s.handoffs << batonIDBits); old&hotBit != 0 {
		abandon() // claimed: the rescuer switches Run's goroutine back
	}
	watcher.remove(s)
}

// rescue switches Run's goroutine, suspended in the driver's coroutine,
// back in with the claimed baton word b. It runs on a goroutine of its own,
// which stays blocked in the driver's coroutine.
func (s *Scheduler) rescue(b uint64) {
	s.rescued = b
	s.driverYield(struct{}{})
	abandon() // the driver ended after all: still nothing may touch s
}

// abandon blocks a goroutine of an abandoned run for good: the stuck
// goroutine once it reaches a handoff, its driver, the rescuer. Stacks
// blocked here are not hot (holderStack).
func abandon() { select {} }

// watchList is the segments the watcher watches.
type watchList struct {
	mu      sync.Mutex
	live    []*Scheduler
	running bool // a watcher goroutine runs
}

// watcher watches every watched segment of the process.
var watcher watchList

// Ticks per bound: a stuck goroutine is reported between one bound and
// one bound and a tick after it got stuck. The tick is at least
// minWatchTick and at most maxWatchTick.
const (
	ticksPerBound = 8
	minWatchTick  = time.Millisecond
	maxWatchTick  = 500 * time.Millisecond
)

// add registers s's running segment, starting the watcher if none runs.
func (l *watchList) add(s *Scheduler) {
	l.mu.Lock()
	s.watchSince = time.Time{} // not seen yet
	l.live = append(l.live, s)
	if !l.running {
		l.running = true
		go l.watch()
	}
	l.mu.Unlock()
}

// remove unregisters s's segment, which has ended.
func (l *watchList) remove(s *Scheduler) {
	l.mu.Lock()
	l.drop(s)
	l.mu.Unlock()
}

func (l *watchList) drop(s *Scheduler) {
	for i, x := range l.live {
		if x == s {
			last := len(l.live) - 1
			l.live[i], l.live[last] = l.live[last], nil
			l.live = l.live[:last]
			return
		}
	}
}

// watch is the watcher goroutine: every tick it checks each segment's
// baton word, and claims a segment whose word has not moved for its bound.
// It ends after two ticks with no segment.
func (l *watchList) watch() {
	empty := 0
	for {
		l.mu.Lock()
		if len(l.live) == 0 {
			if empty++; empty > 2 {
				l.running = false
				l.mu.Unlock()
				return
			}
		} else {
			empty = 0
		}
		tick := maxWatchTick
		now := time.Now()
		for _, s := range append([]*Scheduler(nil), l.live...) {
			tick = min(tick, max(s.opts.HotLoop/ticksPerBound, minWatchTick))
			l.check(s, now)
		}
		l.mu.Unlock()
		time.Sleep(tick)
	}
}

// check claims s's segment if its baton word has not moved for the bound
// (l.mu held).
func (l *watchList) check(s *Scheduler, now time.Time) {
	b := s.baton.Load()
	if s.watchSince.IsZero() || b != s.watchLast {
		s.watchLast, s.watchSince = b, now
		return
	}
	if now.Sub(s.watchSince) < s.opts.HotLoop || !s.baton.CompareAndSwap(b, b|hotBit) {
		return // not stuck long enough, or it has just moved on
	}
	s.hot.Store(true)
	l.drop(s)
	go s.rescue(b)
}
