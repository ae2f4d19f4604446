package sim

import (
	"runtime"
	"testing"
	"time"
)

// TestNoGoroutineLeakAfterManyRuns runs 10,000 simulations, a quarter of
// which end with goroutines still parked (deadlock, step limit, panic,
// halt), and checks that Close unwound every one of them.
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
		s := New(Options{Source: NewPCG(uint64(i)), MaxSteps: int64(50 + i%200)})
		endings[i%len(endings)](s)
		_ = s.Run() // every ending is fine here; only leaks matter
		s.Close()
	}
	// Unwound goroutines have signalled Close and are returning; give the
	// runtime a bounded moment to retire them.
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if got := runtime.NumGoroutine(); got > before {
		t.Fatalf("got %d goroutines after %d runs, want %d", got, runs, before)
	}
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
