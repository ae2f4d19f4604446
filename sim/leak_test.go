package sim

import (
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestNoGoroutineLeakAfterManyRuns runs 10,000 simulations, a quarter of
// which end with goroutines still parked (deadlock, step limit, panic,
// halt, End), and checks that Close unwound every one of them: what is left
// beyond the goroutines before is idle carriers (carrier.go), which
// TestIdleCarriersEnd shows end. Odd runs have no watchdog, so Run's
// goroutine drives the coroutines itself.
func TestNoGoroutineLeakAfterManyRuns(t *testing.T) {
	runs := 10_000
	if testing.Short() {
		runs = 1_000
	}
	before, _ := countGoroutines()
	endings := []func(s *Scheduler){
		contention,
		func(s *Scheduler) { contention(s); s.Go("stuck", func() { s.NewEvent("never").Wait() }) },
		func(s *Scheduler) { contention(s); s.Go("boom", func() { s.Sleep(time.Millisecond); panic("boom") }) },
		func(s *Scheduler) { contention(s); s.Go("halter", func() { s.Sleep(3 * time.Millisecond); s.Halt() }) },
		func(s *Scheduler) { contention(s); s.Go("ender", func() { s.Sleep(3 * time.Millisecond); s.End() }) },
	}
	for i := 0; i < runs; i++ {
		s := New(Options{Source: NewPCG(uint64(i)), MaxSteps: int64(50 + i%200), HotLoop: []time.Duration{0, -1}[i%2]})
		endings[i%len(endings)](s)
		_ = s.Run() // every ending is fine here; only leaks matter
		s.Close()
	}
	waitForGoroutines(t, before)
}

// TestCloseRunsDeferredCallsOfParkedGoroutines shows unwinding is a real
// unwind: a parked goroutine's deferred calls run, and simulation calls
// made from them do not block.
func TestCloseRunsDeferredCallsOfParkedGoroutines(t *testing.T) {
	s := New(Options{Source: NewReplay(nil)}) // worker/a locks first
	mu := s.NewMutex("podLock")
	unwound := 0
	s.GoDaemon("worker/a", func() {
		mu.Lock()
		defer mu.Unlock()
		defer func() { unwound++ }()
		s.NewEvent("never").Wait()
	})
	s.GoDaemon("worker/b", func() {
		defer func() { unwound++ }()
		mu.Lock()
	})
	if err := s.Run(); err == nil {
		t.Fatal("got nil, want a deadlock (worker/b waits on a mutex)")
	}
	s.Close()
	if unwound != 2 {
		t.Fatalf("got %d deferred calls run, want 2", unwound)
	}
}

// TestGoexitIsAnExitAndLeaksNothing: runtime.Goexit in a simulated
// goroutine (t.FailNow from one, say) ends that goroutine like a return.
// iter.Pull would pass the Goexit on to the driver; the scheduler keeps it
// suspended instead and lets Close finish it on a goroutine of its own.
func TestGoexitIsAnExitAndLeaksNothing(t *testing.T) {
	before, _ := countGoroutines()
	for _, hot := range []time.Duration{DefaultHotLoop, -1} {
		s := New(Options{Source: NewPCG(1), HotLoop: hot})
		deferred, after := false, false
		s.Go("quitter", func() {
			defer func() { deferred = true }()
			s.Yield()
			runtime.Goexit()
		})
		s.Go("other", func() {
			s.Sleep(time.Second)
			after = true
		})
		if err := s.Run(); err != nil {
			t.Fatalf("HotLoop %v: got %v, want nil", hot, err)
		}
		if !deferred || !after {
			t.Fatalf("HotLoop %v: deferred %v, other ran to the end %v; want both", hot, deferred, after)
		}
		if !strings.Contains(s.Trace(), "exit") {
			t.Fatalf("HotLoop %v: no exit in the trace:\n%s", hot, s.Trace())
		}
		s.Close()
	}
	waitForGoroutines(t, before)
}

// waitForGoroutines gives unwound goroutines a bounded moment to retire:
// it waits until at most want goroutines other than idle carriers are
// left.
func waitForGoroutines(t *testing.T, want int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	got, _ := countGoroutines()
	for got > want && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
		got, _ = countGoroutines()
	}
	if got > want {
		t.Fatalf("got %d goroutines besides idle carriers, want %d", got, want)
	}
}

// countGoroutines counts the process's goroutines in one snapshot: idle
// carriers (a carrier's coroutine running neither a simulated goroutine
// nor a segment's driver loop, in the pool or about to be ended by its
// cleanup) and the others, except the watcher, which comes and goes with
// the watched segments (watchdog.go).
func countGoroutines() (others, idle int) {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	for _, block := range strings.Split(string(buf), "\n\n") {
		switch {
		case strings.Contains(block, "sim.(*watchList).watch"):
		case strings.Contains(block, "sim.(*carrier).run") && !strings.Contains(block, "sim.(*Scheduler).trampoline") &&
			!strings.Contains(block, "sim.(*Scheduler).driveSegment"):
			idle++
		default:
			others++
		}
	}
	return others, idle
}

// TestIdleCarriersEnd: a carrier carrying a parked goroutine is not idle,
// so the leak tests above see a goroutine Close failed to unwind; Close
// leaves its carrier idle; and the carriers Close hands to the pool are
// ended once the pool drops them (after two garbage collections without a
// taker), so a process that stops simulating keeps none.
func TestIdleCarriersEnd(t *testing.T) {
	collectIdleCarriers(t) // the other tests' carriers
	s := New(Options{Source: NewPCG(1)})
	s.Go("parked", func() { s.NewEvent("never").Wait() })
	if err := s.Run(); err == nil {
		t.Fatal("got nil, want a deadlock")
	}
	others, idle := countGoroutines()
	s.Close()
	if o, i := countGoroutines(); o != others-1 || i != idle+1 {
		t.Fatalf("Close took goroutines besides idle carriers from %d to %d and idle ones from %d to %d; want one less and one more",
			others, o, idle, i)
	}
	for i := 0; i < 20; i++ {
		s := New(Options{Source: NewPCG(uint64(i))})
		contention(s)
		_ = s.Run()
		s.Close()
	}
	if _, idle := countGoroutines(); idle == 0 {
		t.Fatal("no idle carrier after 20 runs")
	}
	collectIdleCarriers(t)
}

// collectIdleCarriers collects garbage until no idle carrier is left, for
// at most 10 seconds.
func collectIdleCarriers(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		runtime.GC()
		time.Sleep(time.Millisecond)
		_, idle := countGoroutines()
		if idle == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d idle carriers left after 10 s of garbage collections", idle)
		}
	}
}

// TestCloseRecordsNothing: what the goroutines Close unwinds do on their
// way out (a deferred Yield or Sleep) adds nothing to the trace. rec tests
// one flag (mute) for untraced runs and Close alike; it fails if Close
// leaves the flag unset.
func TestCloseRecordsNothing(t *testing.T) {
	s := New(Options{Source: NewReplay(nil)})
	s.GoDaemon("worker/a", func() {
		defer s.Sleep(time.Second)
		defer s.Yield()
		s.NewEvent("never").Wait()
	})
	if err := s.Run(); err != nil {
		t.Fatal(err)
	}
	n := s.TraceLen()
	s.Close()
	if got := s.TraceLen(); got != n {
		t.Fatalf("Close added %d records to the trace:\n%s", got-n, s.Trace())
	}
}
