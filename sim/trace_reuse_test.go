package sim

import "testing"

// TestRecycledTraceCarriesNothing: a scheduler built on recycled trace
// chunks records the same trace as one built on fresh chunks, whatever the
// previous run left in them (here also several chunks of junk records),
// and a recycled scheduler's trace is empty.
func TestRecycledTraceCarriesNothing(t *testing.T) {
	run := func(seed uint64, recycle bool) (string, int) {
		s := New(Options{Source: NewPCG(seed)})
		contention(s)
		if err := s.Run(); err != nil {
			t.Fatal(err)
		}
		s.Close()
		trace, n := s.Trace(), s.TraceLen()
		if recycle {
			for i := range 3 * traceLogChunk {
				s.trace.add(record{arg: int64(i), obj: 7, g: 3, op: opAdvance})
			}
			s.Recycle()
			if s.TraceLen() != 0 || s.Trace() != "" {
				t.Fatalf("seed %d: a recycled scheduler still shows %d records", seed, s.TraceLen())
			}
		}
		return trace, n
	}
	want := map[uint64]string{}
	for seed := range uint64(20) {
		want[seed], _ = run(seed, false)
	}
	for round := range 3 {
		for seed := range uint64(20) {
			got, n := run(19-seed, true) // every buffer held another seed's trace
			if got != want[19-seed] || n == 0 {
				t.Fatalf("round %d seed %d: the trace on a recycled buffer differs (%d records)", round, 19-seed, n)
			}
		}
	}
}
