package sim

// Stirring reports whether a goroutine other than the caller, and other than
// those ignore accepts, could still act without being woken by someone
// else: one that is runnable, parked with a timer (Sleep, WaitFor), or
// waiting for a mutex (whose holder will release it). A goroutine parked
// without a timer on a Signal or an Event stays parked until another
// goroutine wakes it. A world uses this to tell that it has gone quiet: if
// nothing stirs but its own periodic daemons (ignored by name), only those
// daemons can change anything. It is not a scheduling point and records
// nothing, so asking changes neither the schedule nor the trace.
func (s *Scheduler) Stirring(ignore func(name string) bool) bool {
	for _, g := range s.all {
		if g == s.cur || g.state == gExited {
			continue
		}
		if (g.state == gRunnable || g.timer != nil || g.mu != nil) && !ignore(g.name) {
			return true
		}
	}
	return false
}
