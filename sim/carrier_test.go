package sim

import (
	"runtime"
	"sync"
	"testing"
	"time"
)

// TestCarriersCarryNothing runs each seed of the contention program twice:
// on new carriers, and on the carriers another run left idle after ending
// in each way a run can end (a deadlock, the step limit, a panic, a halt,
// End, a Goexit, a plain end), with and without the watchdog. The traces must
// be the same: a carrier brings nothing of what it carried before.
func TestCarriersCarryNothing(t *testing.T) {
	endings := []func(s *Scheduler){
		contention,
		func(s *Scheduler) { contention(s); s.Go("stuck", func() { s.NewEvent("never").Wait() }) },
		func(s *Scheduler) { contention(s); s.Go("boom", func() { s.Sleep(time.Millisecond); panic("boom") }) },
		func(s *Scheduler) { contention(s); s.Go("halter", func() { s.Sleep(3 * time.Millisecond); s.Halt() }) },
		func(s *Scheduler) { contention(s); s.Go("ender", func() { s.Sleep(3 * time.Millisecond); s.End() }) },
		func(s *Scheduler) {
			contention(s)
			s.Go("quitter", func() { s.Yield(); runtime.Goexit() })
		},
	}
	for seed := uint64(0); seed < 100; seed++ {
		hot := []time.Duration{0, -1}[seed%2]
		fresh := New(Options{Source: NewPCG(seed), HotLoop: hot})
		fresh.carriers = &carrierList{} // no idle carrier: every one is new
		want := runOn(t, fresh)
		stopIdle(fresh.carriers)

		used := &carrierList{}
		dirty := New(Options{Source: NewPCG(seed + 1000), MaxSteps: int64(50 + seed%200), HotLoop: hot})
		dirty.carriers = used
		endings[seed%uint64(len(endings))](dirty)
		_ = dirty.Run()
		dirty.Close()
		if len(used.idle) == 0 {
			t.Fatalf("seed %d: no carrier left idle", seed)
		}
		reused := New(Options{Source: NewPCG(seed), HotLoop: hot})
		reused.carriers = used
		if got := runOn(t, reused); got != want {
			t.Fatalf("seed %d: trace %s on used carriers, %s on new ones", seed, got, want)
		}
		stopIdle(used)
	}
}

// stopIdle ends a list's idle carriers.
func stopIdle(l *carrierList) {
	l.mu.Lock()
	idle := l.idle
	l.idle, l.low = nil, 0
	l.mu.Unlock()
	for _, c := range idle {
		c.stop()
	}
}

// runOn runs the contention program on s and returns its trace hash.
func runOn(t *testing.T, s *Scheduler) string {
	t.Helper()
	defer s.Close()
	contention(s)
	if err := s.Run(); err != nil {
		t.Fatal(err)
	}
	return s.TraceSHA256()
}

// TestCarriersAcrossParallelRuns runs seeds on several goroutines at once,
// as a parallel sweep does: they share the process's idle carriers, and
// every trace must be the one the seed gives alone. A carrier must reach
// the idle list only once it is suspended: one another run's Go took
// while it still ran would be resumed twice.
func TestCarriersAcrossParallelRuns(t *testing.T) {
	workers, seeds := 8, 2000 // the bug this guards showed in 1 of 3 runs of this size
	if testing.Short() {
		seeds = 500
	}
	want := make([]string, seeds)
	for seed := range want {
		h, err := runProgram(Options{Source: NewPCG(uint64(seed)), HotLoop: -1}, contention)
		if err != nil {
			t.Fatal(err)
		}
		want[seed] = h
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(max(2, runtime.GOMAXPROCS(0))))
	got := make([][]string, workers)
	var wg sync.WaitGroup
	for w := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for seed := range seeds {
				h, _ := runProgram(Options{Source: NewPCG(uint64(seed)), HotLoop: []time.Duration{0, -1}[(w+seed)%2]}, contention)
				got[w] = append(got[w], h)
			}
		}()
	}
	wg.Wait()
	for w := range got {
		for seed, h := range got[w] {
			if h != want[seed] {
				t.Fatalf("worker %d seed %d: trace %s, want %s", w, seed, h, want[seed])
			}
		}
	}
}
