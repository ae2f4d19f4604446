package sim

import (
	"testing"
	"time"
)

// TestEndIsHalt: a run its driver ends with End is the run Halt ends, for
// 200 seeds of the contention program with the driver ending it midway:
// the same trace, steps, virtual time and result. Only the ender's
// deferred call moves: with End it runs as the ender returns, before Run
// does; with Halt, at Close. End's caller has exited by then, so Close
// has nothing of it to unwind. It fails if End's exit is recorded (the
// traces differ) or if End does not end the run.
func TestEndIsHalt(t *testing.T) {
	type outcome struct {
		trace          string
		steps          int64
		at             time.Duration
		err            error
		deferredBefore int
		deferredAfter  int
		enderExited    bool
	}
	run := func(seed uint64, end bool) outcome {
		s := New(Options{Source: NewPCG(seed), HotLoop: []time.Duration{0, -1}[seed%2]})
		deferred := 0
		contention(s)
		s.Go("ender", func() {
			defer func() { deferred++ }()
			s.Sleep(time.Duration(1+seed%4) * time.Millisecond)
			if end {
				s.End()
				return
			}
			s.Halt()
		})
		err := s.Run()
		o := outcome{err: err, steps: s.Steps(), at: s.Elapsed(), deferredBefore: deferred,
			enderExited: s.all[len(s.all)-1].state == gExited}
		s.Close()
		o.deferredAfter, o.trace = deferred, s.TraceSHA256()
		return o
	}
	for seed := uint64(0); seed < 200; seed++ {
		halt, end := run(seed, false), run(seed, true)
		if halt.err != nil || end.err != nil {
			t.Fatalf("seed %d: Halt's run ended with %v, End's with %v", seed, halt.err, end.err)
		}
		if halt.trace != end.trace || halt.steps != end.steps || halt.at != end.at {
			t.Fatalf("seed %d: Halt's run %s, %d steps, %v; End's %s, %d steps, %v", seed,
				halt.trace, halt.steps, halt.at, end.trace, end.steps, end.at)
		}
		if halt.deferredBefore != 0 || halt.deferredAfter != 1 || halt.enderExited {
			t.Fatalf("seed %d: Halt's caller: deferred call %d before Close, %d after, exited %v; want 0, 1, false",
				seed, halt.deferredBefore, halt.deferredAfter, halt.enderExited)
		}
		if end.deferredBefore != 1 || end.deferredAfter != 1 || !end.enderExited {
			t.Fatalf("seed %d: End's caller: deferred call %d before Close, %d after, exited %v; want 1, 1, true",
				seed, end.deferredBefore, end.deferredAfter, end.enderExited)
		}
	}
}

// TestOperationAfterEndPanics: End's caller must return at once; a
// simulation call after End panics, and the run ends with a PanicError
// naming it, instead of going on after its end.
func TestOperationAfterEndPanics(t *testing.T) {
	s := New(Options{Source: NewReplay(nil)})
	defer s.Close()
	s.GoDaemon("worker", func() { s.NewEvent("never").Wait() })
	s.Go("ender", func() {
		s.End()
		s.Yield()
	})
	err := s.Run()
	pe, ok := err.(*PanicError)
	if !ok || pe.Goroutine != "ender" {
		t.Fatalf("got %v, want a PanicError of ender", err)
	}
}
