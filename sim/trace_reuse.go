package sim

import "sync"

// traceBuffers keeps the trace buffers of schedulers whose runs are over
// (Recycle), for the next New in the process: a sweep runs seed after seed,
// and each run's trace grows to thousands of records (the largest
// allocation of a seed). A buffer is handed out empty: nothing of one run
// reaches another, whichever goroutine takes it.
var traceBuffers = sync.Pool{New: func() any {
	buf := make([]record, 0, initialTrace)
	return &buf
}}

func newTrace() []record { return (*traceBuffers.Get().(*[]record))[:0] }

// Recycle hands the scheduler's trace buffer to the next scheduler New
// makes, once the run is over and its trace read: after Recycle the
// scheduler's trace is empty (Trace, TraceSHA256, TraceLen and Timeline
// see no operation). Call it at most once, and only after Close or the end
// of Run.
func (s *Scheduler) Recycle() {
	buf := s.trace[:0]
	s.trace = nil
	if cap(buf) > 0 {
		traceBuffers.Put(&buf)
	}
}
