package sim

import (
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestNoGoroutineLeakAfterManyRuns runs 10,000 simulations, a quarter of
// which end with goroutines still parked (deadlock, step limit, panic,
// halt), and checks that Close unwound every one of them. Odd runs have no
// watchdog, so Run's goroutine drives the coroutines itself.
func TestNoGoroutineLeakAfterManyRuns(t *testing.T) {
	runs := 10_000
	if testing.Short() {
		runs = 1_000
	}
	before := runtime.NumGoroutine()
	endings := []func(s *Scheduler){
		contention,
		func(s *Scheduler) { contention(s); s.Go("stuck", func() { s.NewEvent("never").Wait() }) },
		func(s *Scheduler) { contention(s); s.Go("boom", func() { s.Sleep(time.Millisecond); panic("boom") }) },
		func(s *Scheduler) { contention(s); s.Go("halter", func() { s.Sleep(3 * time.Millisecond); s.Halt() }) },
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
	before := runtime.NumGoroutine()
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

// waitForGoroutines gives unwound goroutines a bounded moment to retire.
func waitForGoroutines(t *testing.T, want int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > want && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if got := runtime.NumGoroutine(); got > want {
		t.Fatalf("got %d goroutines, want %d", got, want)
	}
}
