package sim

// Untraced stops the recording of the trace, for a run whose caller reads
// no trace: nothing else of the run changes (the trace is written, never
// read, by the scheduler itself: its choices, clock, deadlock and hot-loop
// checks do not depend on it). Call it before Run. What the run recorded
// before stays, so the trace is cut: Trace, TraceSHA256, TraceLen and
// Timeline panic on an untraced scheduler rather than give it. A caller
// that then needs the trace runs the same seed again without Untraced
// (runs are deterministic).
func (s *Scheduler) Untraced() { s.untraced, s.mute = true, true }

// Traced reports whether the scheduler records its trace (not Untraced).
func (s *Scheduler) Traced() bool { return !s.untraced }

// mustBeTraced panics if the scheduler is untraced: its trace is cut.
func (s *Scheduler) mustBeTraced(what string) {
	if s.untraced {
		panic("sim: " + what + " of an untraced run (Untraced): its trace is not recorded")
	}
}
