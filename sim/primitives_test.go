package sim

import (
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/podsim/podsim/fakeclock"
)

// run runs prog as one goroutine "g" on a cooperative schedule and returns
// the trace.
func run(t *testing.T, prog func(s *Scheduler)) string {
	t.Helper()
	s := New(Options{Source: NewReplay(nil)})
	defer s.Close()
	prog(s)
	if err := s.Run(); err != nil {
		t.Fatal(err)
	}
	return s.Trace()
}

func TestSignalHoldsOneWakeUp(t *testing.T) {
	var got []bool
	run(t, func(s *Scheduler) {
		sg := s.NewSignal("updates/a")
		s.Go("g", func() {
			sg.Notify()
			sg.Notify() // coalesced
			got = append(got, sg.TryWait(), sg.TryWait())
			sg.Notify()
			sg.Close()
			got = append(got, sg.Wait(), sg.Wait()) // drains, then reports closed
		})
	})
	want := []bool{true, false, true, false}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("got %v, want %v", got, want)
		}
	}
}

func TestSignalWakesParkedWaiterAndCloseReleasesIt(t *testing.T) {
	var got []bool
	run(t, func(s *Scheduler) {
		sg := s.NewSignal("updates/a")
		s.Go("worker", func() {
			got = append(got, sg.Wait(), sg.Wait())
		})
		s.Go("client", func() {
			s.Sleep(time.Second)
			sg.Notify()
			s.Sleep(time.Second)
			sg.Close()
		})
	})
	if len(got) != 2 || !got[0] || got[1] {
		t.Fatalf("got %v, want [true false]", got)
	}
}

func TestEventWaitForTimesOutOnVirtualTime(t *testing.T) {
	type obs struct {
		ok bool
		at time.Duration
	}
	var got []obs
	run(t, func(s *Scheduler) {
		late, early := s.NewEvent("late"), s.NewEvent("early")
		s.Go("waiter", func() {
			ok := late.WaitFor(3 * time.Second)
			got = append(got, obs{ok, s.Elapsed()})
			ok = early.WaitFor(10 * time.Second)
			got = append(got, obs{ok, s.Elapsed()})
			got = append(got, obs{early.WaitFor(0), s.Elapsed()})
		})
		s.Go("firer", func() {
			s.Sleep(5 * time.Second)
			early.Fire()
			s.Sleep(time.Hour)
			late.Fire()
		})
	})
	want := []obs{{false, 3 * time.Second}, {true, 5 * time.Second}, {true, 5 * time.Second}}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("observation %d: got %+v, want %+v", i, got[i], want[i])
		}
	}
}

func TestSleepersWakeInDeadlineThenSpawnOrder(t *testing.T) {
	var order []string
	run(t, func(s *Scheduler) {
		for _, c := range []struct {
			name string
			d    time.Duration
		}{{"c", 2 * time.Second}, {"a", time.Second}, {"b", 2 * time.Second}, {"d", time.Second}} {
			s.Go(c.name, func() {
				s.Sleep(c.d)
				order = append(order, c.name)
			})
		}
	})
	if got := strings.Join(order, ","); got != "a,d,c,b" {
		t.Fatalf("got %s, want a,d,c,b", got)
	}
}

func TestMutexGoesToOldestWaiterUnderChoiceZero(t *testing.T) {
	var order []string
	run(t, func(s *Scheduler) {
		mu := s.NewMutex("podLock")
		s.Go("holder", func() {
			mu.Lock()
			s.Sleep(time.Second)
			mu.Unlock()
		})
		for _, name := range []string{"w1", "w2", "w3"} {
			s.Go(name, func() {
				mu.Lock()
				order = append(order, name)
				mu.Unlock()
			})
		}
	})
	if got := strings.Join(order, ","); got != "w1,w2,w3" {
		t.Fatalf("got %s, want w1,w2,w3", got)
	}
}

func TestMutexExcludesUnderEverySchedule(t *testing.T) {
	for seed := uint64(0); seed < 200; seed++ {
		s := New(Options{Source: NewPCG(seed)})
		mu := s.NewMutex("mu")
		inside := 0
		for i := 0; i < 4; i++ {
			s.Go(string(rune('a'+i)), func() {
				for r := 0; r < 5; r++ {
					mu.Lock()
					inside++
					if inside != 1 {
						panic("two goroutines inside the mutex")
					}
					s.Yield()
					inside--
					mu.Unlock()
				}
			})
		}
		if err := s.Run(); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		s.Close()
	}
}

func TestHaltEndsTheRunSuccessfully(t *testing.T) {
	s := New(Options{})
	defer s.Close()
	s.Go("busy", func() {
		for {
			s.Sleep(time.Second)
		}
	})
	s.Go("driver", func() {
		s.Sleep(10 * time.Second)
		s.Halt()
		panic("Halt returned")
	})
	if err := s.Run(); err != nil {
		t.Fatalf("got %v, want nil", err)
	}
	if s.Elapsed() != 10*time.Second {
		t.Fatalf("halted at %v, want 10s", s.Elapsed())
	}
}

func TestGoFromInsideAndTraceNamesEverything(t *testing.T) {
	tr := run(t, func(s *Scheduler) {
		s.Go("parent", func() {
			s.Go("child", func() { s.Intn(10) })
			s.Sleep(time.Millisecond)
		})
	})
	for _, want := range []string{"0s - go parent", "0s parent go child", "0s child rand", "1ms - advance clock"} {
		if !strings.Contains(tr, want) {
			t.Errorf("trace lacks %q:\n%s", want, tr)
		}
	}
}

func TestNowIsEpochPlusElapsed(t *testing.T) {
	s := New(Options{})
	defer s.Close()
	start := s.Now()
	s.Go("g", func() { s.Sleep(90 * time.Minute) })
	if err := s.Run(); err != nil {
		t.Fatal(err)
	}
	if got := s.Now().Sub(start); got != 90*time.Minute {
		t.Fatalf("got %v, want 1h30m", got)
	}
}

// TestTimedWaitsAllocateNothing: a goroutine's Sleeps and timed WaitFors
// share one timer, made at its first timed wait (armAlarm), so each later
// one allocates nothing; a timer and a callback per wait would cost two
// allocations each. The per-wait figure is the difference between runs of
// 2,100 and 100 waits, so the run's own set-up cancels out.
func TestTimedWaitsAllocateNothing(t *testing.T) {
	waits := func(n int) float64 {
		return testing.AllocsPerRun(5, func() {
			s := New(Options{HotLoop: -1})
			never := s.NewEvent("never")
			s.Go("sleeper", func() {
				for i := range n {
					if i%2 == 0 {
						s.Sleep(time.Second)
					} else {
						never.WaitFor(time.Second)
					}
				}
			})
			if err := s.Run(); err != nil {
				t.Fatal(err)
			}
			s.Close()
			s.Recycle()
		})
	}
	few, many := waits(100), waits(2100)
	if per := (many - few) / 2000; per > 0.05 {
		t.Fatalf("got %.3f allocations per timed wait (%v for 100 waits, %v for 2,100), want none", per, few, many)
	}
}

// TestNowFollowsElapsed: Now is the epoch plus Elapsed wherever time moves
// (a timer firing in Run, RunFor's advance past the last timer), since
// the scheduler keeps Now rather than adding the two at each call: a move
// that forgot to update Now fails here.
func TestNowFollowsElapsed(t *testing.T) {
	s := New(Options{Source: NewPCG(3)})
	defer s.Close()
	var seen []time.Duration
	check := func(where string) {
		if want := fakeclock.Epoch().Add(s.Elapsed()); !s.Now().Equal(want) {
			t.Fatalf("%s: Now %v, want epoch + %v", where, s.Now(), s.Elapsed())
		}
		seen = append(seen, s.Elapsed())
	}
	check("new")
	for i, d := range []time.Duration{time.Second, 0, 3 * time.Millisecond, time.Minute} {
		s.Go("g"+strconv.Itoa(i), func() {
			check("start")
			s.Sleep(d)
			check("after a sleep")
		})
	}
	if err := s.RunFor(2 * time.Second); err != nil {
		t.Fatal(err)
	}
	check("after RunFor")
	if err := s.Run(); err != nil {
		t.Fatal(err)
	}
	check("after Run")
	if want := []time.Duration{0, 0, 0, 0, 0, 0, 3 * time.Millisecond, time.Second, 2 * time.Second, time.Minute, time.Minute}; !slices.Equal(seen, want) {
		t.Fatalf("times seen %v, want %v", seen, want)
	}
}
