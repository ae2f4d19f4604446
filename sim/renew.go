package sim

// Renew is New(opts) in s's memory: its room (the first arrays, the clock,
// the first goroutine slab) serves the next run, for a lane's next seed
// (world.World.Renew). Only a scheduler whose run is over for good is
// renewed: Close has run, and no goroutine stuck in a hot loop still runs
// on it; for any other, or a nil s, Renew returns New(opts). The caller
// must hold nothing of s's run (its trace: Recycle first, or it is dropped).
func (s *Scheduler) Renew(opts Options) *Scheduler {
	if s == nil || !s.unwinding || s.hot.Load() {
		return New(opts)
	}
	*s = Scheduler{} // as New's: every field zero, the room's too
	return s.init(opts)
}
