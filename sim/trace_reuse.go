package sim

import "sync"

// traceChunks keeps the trace chunks of schedulers whose runs are over
// (Recycle), for the next traceLog of the process: a sweep runs seed after
// seed, and each run's trace fills one to a few chunks (the largest
// allocation of a seed). A chunk is handed out empty: nothing of one run
// reaches another, whichever goroutine takes it.
var traceChunks = sync.Pool{New: func() any {
	c := make([]record, 0, traceLogChunk)
	return &c
}}

// newTraceChunk returns an empty chunk of traceLogChunk records' capacity.
func newTraceChunk() []record { return (*traceChunks.Get().(*[]record))[:0] }

// Recycle hands the scheduler's trace chunks to the next scheduler of the
// process, once the run is over and its trace read: after Recycle the
// scheduler's trace is empty (Trace, TraceSHA256, TraceLen and Timeline
// see no operation). Call it only after Close or the end of Run.
func (s *Scheduler) Recycle() {
	for _, c := range s.trace.full {
		putTraceChunk(c)
	}
	putTraceChunk(s.trace.last) // nil in a run that recorded nothing (Untraced)
	s.trace = traceLog{}
}

// putTraceChunk hands a full-sized chunk back to the pool; it allocates
// (the pool's *[]record) only then, not for every call.
func putTraceChunk(c []record) {
	if cap(c) == traceLogChunk {
		p := new([]record)
		*p = c[:0]
		traceChunks.Put(p)
	}
}
