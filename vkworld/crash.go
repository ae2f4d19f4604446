package vkworld

import "github.com/podsim/podsim/sim"

// A crash of the controller's process (V8's nil dereference): the
// simulated controller models it rather than panicking for real, so the
// run goes on and its observable consequence is what the oracle judges
// (history/notes_vk.go records nothing of the crash itself): the dead
// controller acts no more, its queues never drain and, when cancelled, its
// Done never closes. The crash is also reported as the run's secondary
// signal (World.Crash), as the scheduler reports a panic.

// crash kills the controller's process: its watch and its NotifyPods
// callback go, its queues stop handing out work (what they hold stays), and
// the goroutine that crashed, like every worker that finishes a call
// afterwards, never returns to its queue.
func (c *controller) crash(value string) {
	if c.crashed != "" {
		return
	}
	w := c.w
	c.crashed = value
	if w.crash == nil {
		w.crash = &sim.PanicError{Goroutine: w.S.Goroutine(), Value: value, At: w.S.Elapsed(), Steps: w.S.Steps()}
	}
	c.inf.stop()
	if w.prov.callback != nil && w.ctrl == c {
		w.prov.callback = nil
	}
	for _, q := range []*queue{c.syncQ, c.deleteQ, c.statusQ} {
		q.shutdown()
	}
}

// Crash is the first crash of a controller's process in the run (a
// *sim.PanicError), or nil.
func (w *World) Crash() error {
	if w.crash == nil {
		return nil
	}
	return w.crash
}
