package sim

import (
	"errors"
	"fmt"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strings"
	"sync"
	"testing"
	"time"
)

// The watchdog's own tests (watchdog.go); TestHotLoopIsReportedWithItsStack
// is in errors_test.go.

// testBound is the hot-loop bound of these tests: short, so that they are
// fast, and long enough that a run that is not stuck never gets near it.
const testBound = 50 * time.Millisecond

// TestHotLoopOnARealChannelIsReported: a simulated goroutine blocked on a
// real channel (which only another simulated goroutine could release, and
// never will: only the holder runs) is reported as a hot loop too.
func TestHotLoopOnARealChannelIsReported(t *testing.T) {
	s := New(Options{HotLoop: testBound})
	release := make(chan struct{})
	s.Go("receiver", func() { plantedReceive(release) })
	err := s.Run()
	close(release)
	var he *HotLoopError
	if !errors.As(err, &he) || he.Goroutine != "receiver" || !strings.Contains(he.Stack, "plantedReceive") {
		t.Fatalf("got %v, want a *HotLoopError of receiver with plantedReceive in its stack", err)
	}
}

// plantedReceive blocks on a real channel for at most a minute (a broken
// watchdog then fails the test instead of hanging it).
func plantedReceive(release chan struct{}) {
	select {
	case <-release:
	case <-time.After(time.Minute):
	}
}

// TestLaneGoesOnAfterAHotLoop: goroutines that each run a sweep's worth of
// simulations one after another (lanes), one of which gets stuck in a hot
// loop in its middle run, all go on: the stuck run reports a HotLoopError
// naming its goroutine, and every other run, on that lane (before and
// after it) and on the others, running at the same time, gives the trace
// it gives alone without the watchdog.
func TestLaneGoesOnAfterAHotLoop(t *testing.T) {
	const lanes, runs, stuckLane, stuckRun = 3, 12, 1, 5
	want := make([]string, runs)
	for i := range want {
		want[i] = laneRun(t, i, -1, nil)
	}
	release := make(chan struct{})
	defer close(release)
	var wg sync.WaitGroup
	for l := 0; l < lanes; l++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < runs; i++ {
				if l == stuckLane && i == stuckRun {
					laneRun(t, i, testBound, release)
					continue
				}
				if got := laneRun(t, i, testBound, nil); got != want[i] {
					t.Errorf("lane %d, run %d: got trace %s, want %s as without the watchdog", l, i, got, want[i])
				}
			}
		}()
	}
	wg.Wait()
}

// laneRun runs contention under seed i with the given bound and returns
// its trace hash; with a release channel, a goroutine of the run gets
// stuck in a hot loop after a few steps, and laneRun checks the error.
func laneRun(t *testing.T, i int, bound time.Duration, release chan struct{}) string {
	s := New(Options{Source: NewPCG(uint64(i)), HotLoop: bound})
	contention(s)
	if release != nil {
		s.Go("spinner", func() {
			s.Sleep(time.Millisecond)
			plantedHotLoop(release)
		})
	}
	err := s.Run()
	var he *HotLoopError
	switch {
	case release == nil && err != nil:
		t.Errorf("run %d: %v", i, err)
	case release != nil && (!errors.As(err, &he) || he.Goroutine != "spinner"):
		t.Errorf("run %d: got %v, want a *HotLoopError of spinner", i, err)
	}
	s.Close()
	return s.TraceSHA256()
}

// TestAbandonedRunIsLeftAlone: once a hot loop is reported, the stuck
// goroutine touches the run no more when it leaves its loop (it blocks
// for good), so the caller can read what the run recorded while it runs.
func TestAbandonedRunIsLeftAlone(t *testing.T) {
	s := New(Options{HotLoop: testBound})
	release := make(chan struct{})
	s.Go("calm", func() {
		for {
			s.Sleep(time.Second)
		}
	})
	s.Go("spinner", func() {
		s.Sleep(time.Millisecond)
		plantedHotLoop(release)
		s.Yield() // would hand the baton to calm, and the run would go on
	})
	err := s.Run()
	var he *HotLoopError
	if !errors.As(err, &he) {
		t.Fatalf("got %v, want a *HotLoopError", err)
	}
	steps, records := s.Steps(), s.TraceLen()
	close(release)
	waitForStack(t, "plantedHotLoop", false) // it left its loop
	if s.Steps() != steps || s.TraceLen() != records {
		t.Fatalf("the abandoned run went on: steps %d -> %d, trace records %d -> %d", steps, s.Steps(), records, s.TraceLen())
	}
	if err := s.Run(); err != he {
		t.Fatalf("Run after a hot loop: got %v, want the same HotLoopError", err)
	}
}

// waitForStack waits (for at most 10 seconds) until some goroutine's stack
// holds fn (present) or none does (!present).
func waitForStack(t *testing.T, fn string, present bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		buf := make([]byte, 1<<20)
		if strings.Contains(string(buf[:runtime.Stack(buf, true)]), fn) == present {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 10 s, a stack holding %s: got %v, want %v", fn, !present, present)
		}
		time.Sleep(time.Millisecond)
	}
}

// TestWatchedSegmentsStartNoGoroutine: with the watchdog on, a segment
// starts no goroutine (its driver is a carrier and the watcher is shared),
// so a sweep of watched runs creates none once the carriers it needs exist.
// The collector is off so that it ends no idle carrier meanwhile.
func TestWatchedSegmentsStartNoGoroutine(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	sweep := func() {
		for i := 0; i < 200; i++ {
			s := New(Options{Source: NewPCG(uint64(i)), HotLoop: DefaultHotLoop})
			contention(s)
			_ = s.Run()
			s.Close()
		}
	}
	sweep() // the carriers
	before := goroutinesCreated()
	sweep()
	// One at most: the watcher, had it ended while this goroutine waited
	// to run for longer than its idle ticks.
	n := goroutinesCreated() - before
	t.Logf("200 watched runs created %d goroutines", n)
	if n > 1 {
		t.Fatalf("200 watched runs created %d goroutines, want at most 1", n)
	}
}

func goroutinesCreated() uint64 {
	m := []metrics.Sample{{Name: "/sched/goroutines-created:goroutines"}}
	metrics.Read(m)
	return m[0].Value.Uint64()
}

// TestWatcherEnds: the watcher goroutine ends once no watched segment has
// run for a few of its ticks, so a process that stops simulating keeps it
// no more than it keeps idle carriers.
func TestWatcherEnds(t *testing.T) {
	s := New(Options{HotLoop: testBound})
	s.Go("sleeper", func() { s.Sleep(time.Hour) })
	if err := s.Run(); err != nil {
		t.Fatal(err)
	}
	waitForStack(t, "sim.(*watchList).watch", false)
}

// TestHotLoopBoundIsPerRun: segments with different bounds are watched
// together, each against its own: a run with a long bound whose goroutine
// is busy for longer than a short one's bound (without a scheduling point)
// is not reported, while a stuck run with the short bound is.
func TestHotLoopBoundIsPerRun(t *testing.T) {
	patient := New(Options{HotLoop: time.Minute})
	patient.Go("busy", func() { time.Sleep(10 * testBound) }) // busy without a scheduling point
	stuck := New(Options{HotLoop: testBound})
	release := make(chan struct{})
	stuck.Go("spinner", func() { plantedHotLoop(release) })
	errs := make(chan error, 1)
	go func() { errs <- patient.Run() }()
	err := stuck.Run()
	close(release)
	var he *HotLoopError
	if !errors.As(err, &he) || he.Goroutine != "spinner" {
		t.Fatalf("the short bound: got %v, want a *HotLoopError of spinner", err)
	}
	if err := <-errs; err != nil {
		t.Fatalf("the long bound: got %v, want nil", fmt.Sprint(err))
	}
	patient.Close()
}
