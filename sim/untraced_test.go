package sim

import (
	"strings"
	"testing"
)

// TestUntracedRunIsTheSameRun: an untraced run of the contention program
// takes the same steps to the same virtual time and error as the traced
// run of the same seed, records nothing after Untraced, and its trace
// readers refuse it rather than give a cut trace. It takes no trace chunk
// (a scheduler takes its first at its first record).
func TestUntracedRunIsTheSameRun(t *testing.T) {
	for seed := uint64(0); seed < 20; seed++ {
		traced, untraced := New(Options{Source: NewPCG(seed)}), New(Options{Source: NewPCG(seed)})
		untraced.Untraced()
		for _, s := range []*Scheduler{traced, untraced} {
			contention(s)
		}
		before := untraced.trace.len()
		errT, errU := traced.Run(), untraced.Run()
		if traced.Steps() != untraced.Steps() || traced.Elapsed() != untraced.Elapsed() || (errT == nil) != (errU == nil) {
			t.Fatalf("seed %d: traced %d steps %v %v, untraced %d steps %v %v", seed,
				traced.Steps(), traced.Elapsed(), errT, untraced.Steps(), untraced.Elapsed(), errU)
		}
		if n := untraced.trace.len(); n != before || traced.TraceLen() <= before {
			t.Fatalf("seed %d: untraced run recorded %d records during Run; traced %d", seed, n-before, traced.TraceLen())
		}
		if cap(untraced.trace.last) != 0 {
			t.Fatalf("seed %d: an untraced run took a trace chunk it never fills", seed)
		}
		if !traced.Traced() || untraced.Traced() {
			t.Fatalf("seed %d: Traced %v and %v, want true and false", seed, traced.Traced(), untraced.Traced())
		}
		traced.Close()
		untraced.Close()
		for name, read := range map[string]func(){"Trace": func() { untraced.Trace() },
			"TraceSHA256": func() { untraced.TraceSHA256() }, "TraceLen": func() { untraced.TraceLen() },
			"Timeline": func() { untraced.Timeline() }} {
			if msg := panicOf(read); !strings.Contains(msg, "untraced") {
				t.Fatalf("seed %d: %s of an untraced run: panic %q, want one naming it untraced", seed, name, msg)
			}
		}
	}
}

// panicOf calls f and returns what it panicked with, "" if nothing.
func panicOf(f func()) (msg string) {
	defer func() {
		if p := recover(); p != nil {
			msg = p.(string)
		}
	}()
	f()
	return ""
}

// TestUntracedRecycleAllocatesNothing: an untraced run holds no trace
// chunk, so Recycle has nothing to hand back and allocates nothing (it
// fails when the chunk's pool pointer is made for every call).
func TestUntracedRecycleAllocatesNothing(t *testing.T) {
	s := New(Options{Source: NewReplay(nil), HotLoop: -1})
	s.Untraced()
	if n := testing.AllocsPerRun(100, s.Recycle); n != 0 {
		t.Fatalf("Recycle of an untraced run: %v allocations, want 0", n)
	}
}
