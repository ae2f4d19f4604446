package sim

import "time"

// Running a segment: who runs the driver loop, and the hot-loop watchdog.
//
// The driver resumes the coroutine holding the baton, and a coroutine runs
// on its resumer's OS thread until it yields: while a simulated goroutine
// runs, the driver's goroutine is suspended in iter.Pull's next. So a
// watchdog cannot share a goroutine with the driver. With the watchdog on
// (Options.HotLoop >= 0) the driver runs on a goroutine of its own, one per
// segment, and Run's goroutine watches the baton word; a stuck goroutine
// then leaves only the driver's goroutine stuck with it, and Run returns a
// HotLoopError whose stack comes from runtime.Stack(all): a coroutine is a
// goroutine to the runtime, listed with its own stack, so the holder is
// the simulated goroutine not suspended in awaitBaton (holderStack). With
// the watchdog off, Run's goroutine is the driver: no goroutine per
// segment, no channel.

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
		err := s.drive()
		s.running = false
		return err
	}
	go func() { s.done <- s.drive() }()
	err := s.wait()
	if _, hot := err.(*HotLoopError); hot {
		// The stuck goroutine still runs: touch nothing it might read.
		s.hotErr = err
		return err
	}
	s.running = false
	return err
}

// wait blocks Run's goroutine until the driver reports the segment's
// result, watching for a goroutine that stops reaching scheduling points.
func (s *Scheduler) wait() error {
	tick := time.NewTicker(s.opts.HotLoop)
	defer tick.Stop()
	last := s.baton.Load()
	for {
		select {
		case err := <-s.done:
			return err
		case <-tick.C:
			b := s.baton.Load()
			if b != last {
				last = b
				continue
			}
			s.hot.Store(true)
			// The atomic load orders this read after the spawn of the holder;
			// the holder itself is stuck outside every simulation operation.
			g := s.all[b&(1<<batonIDBits-1)]
			return &HotLoopError{Goroutine: g.name, Bound: s.opts.HotLoop, Handoffs: int64(b >> batonIDBits), Stack: holderStack()}
		}
	}
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
	s.unwinding = true
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
