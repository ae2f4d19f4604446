package sim

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestDeadlockNamesEveryBlockedGoroutineSortedByName(t *testing.T) {
	s := New(Options{Source: NewReplay(nil)})
	defer s.Close()
	a, b := s.NewMutex("lock/a"), s.NewMutex("lock/b")
	never := s.NewEvent("never")
	s.Go("zeta", func() {
		a.Lock()
		s.Sleep(time.Second)
		b.Lock()
	})
	s.Go("alpha", func() {
		b.Lock()
		s.Sleep(time.Second)
		a.Lock()
	})
	s.Go("mid", func() { never.Wait() })
	err := s.Run()
	var dl *DeadlockError
	if !errors.As(err, &dl) {
		t.Fatalf("got %v, want a *DeadlockError", err)
	}
	want := []Blocked{
		{Goroutine: "alpha", Waits: "lock lock/a (held by zeta)"},
		{Goroutine: "mid", Waits: "wait event never"},
		{Goroutine: "zeta", Waits: "lock lock/b (held by alpha)"},
	}
	if len(dl.Blocked) != len(want) {
		t.Fatalf("got %d blocked, want %d: %v", len(dl.Blocked), len(want), err)
	}
	for i := range want {
		if dl.Blocked[i] != want[i] {
			t.Errorf("blocked[%d]: got %+v, want %+v", i, dl.Blocked[i], want[i])
		}
	}
	if dl.At != time.Second {
		t.Errorf("deadlock at: got %v, want 1s", dl.At)
	}
	if !strings.Contains(err.Error(), "alpha: lock lock/a (held by zeta)") {
		t.Errorf("message does not name the wait: %v", err)
	}
}

func TestDaemonsWaitingAreNotADeadlock(t *testing.T) {
	s := New(Options{})
	defer s.Close()
	sig := s.NewSignal("updates/a")
	s.GoDaemon("worker/a", func() {
		for sig.Wait() {
		}
	})
	s.Go("client", func() { sig.Notify() })
	if err := s.Run(); err != nil {
		t.Fatalf("got %v, want nil", err)
	}
}

func TestDaemonOnAMutexIsADeadlock(t *testing.T) {
	s := New(Options{Source: NewReplay(nil)})
	defer s.Close()
	mu := s.NewMutex("podLock")
	s.Go("holder", func() {
		mu.Lock()
		s.NewEvent("never").Wait()
	})
	s.GoDaemon("worker/a", func() { mu.Lock() })
	var dl *DeadlockError
	if err := s.Run(); !errors.As(err, &dl) {
		t.Fatalf("got %v, want a *DeadlockError", err)
	}
}

func TestStepLimit(t *testing.T) {
	s := New(Options{MaxSteps: 100})
	defer s.Close()
	s.Go("spinner", func() {
		for {
			s.Yield()
		}
	})
	err := s.Run()
	var le *LimitError
	if !errors.As(err, &le) {
		t.Fatalf("got %v, want a *LimitError", err)
	}
	if le.Kind != "steps" || le.Goroutine != "spinner" || le.Steps != 100 {
		t.Fatalf("got kind %q goroutine %q steps %d, want steps, spinner, 100", le.Kind, le.Goroutine, le.Steps)
	}
}

func TestTimeLimit(t *testing.T) {
	s := New(Options{MaxTime: time.Minute})
	defer s.Close()
	s.Go("sleeper", func() {
		for {
			s.Sleep(25 * time.Second)
		}
	})
	err := s.Run()
	var le *LimitError
	if !errors.As(err, &le) {
		t.Fatalf("got %v, want a *LimitError", err)
	}
	if le.Kind != "time" || le.At != 50*time.Second {
		t.Fatalf("got kind %q at %v, want time at 50s", le.Kind, le.At)
	}
}

func TestPanicIsReportedWithGoroutineAndStack(t *testing.T) {
	s := New(Options{})
	defer s.Close()
	s.Go("bystander", func() { s.NewEvent("never").Wait() })
	s.Go("worker/a", func() {
		s.Sleep(time.Second)
		plantedPanic()
	})
	err := s.Run()
	var pe *PanicError
	if !errors.As(err, &pe) {
		t.Fatalf("got %v, want a *PanicError", err)
	}
	if pe.Goroutine != "worker/a" || pe.Value != "boom" || pe.At != time.Second {
		t.Fatalf("got %s %v at %v, want worker/a boom at 1s", pe.Goroutine, pe.Value, pe.At)
	}
	if !strings.Contains(pe.Stack, "plantedPanic") {
		t.Fatalf("stack does not show the panicking function:\n%s", pe.Stack)
	}
}

func plantedPanic() { panic("boom") }

func TestMisuseOfPrimitivesPanicsWithTheirNames(t *testing.T) {
	cases := []struct {
		name string
		prog func(s *Scheduler)
		want string
	}{
		{"relock", func(s *Scheduler) { m := s.NewMutex("podLock"); m.Lock(); m.Lock() }, "g locks podLock, which it already holds"},
		{"unlock unlocked", func(s *Scheduler) { s.NewMutex("podLock").Unlock() }, "g unlocks podLock, which is not locked"},
		{"notify closed", func(s *Scheduler) { sg := s.NewSignal("updates/a"); sg.Close(); sg.Notify() }, "g notifies updates/a, which is closed"},
		{"close closed", func(s *Scheduler) { sg := s.NewSignal("updates/a"); sg.Close(); sg.Close() }, "already closed"},
		{"fire twice", func(s *Scheduler) { e := s.NewEvent("done/a"); e.Fire(); e.Fire() }, "g fires done/a, which has already fired"},
		{"intn zero", func(s *Scheduler) { s.Intn(0) }, "n must be positive"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := New(Options{})
			defer s.Close()
			s.Go("g", func() { c.prog(s) })
			var pe *PanicError
			if err := s.Run(); !errors.As(err, &pe) || !strings.Contains(pe.Error(), c.want) {
				t.Fatalf("got %v, want a panic containing %q", err, c.want)
			}
		})
	}
}

func TestOperationOutsideTheSimulationPanics(t *testing.T) {
	s := New(Options{})
	defer s.Close()
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "outside a running simulated goroutine") {
			t.Fatalf("got %v, want a panic about calling outside the simulation", r)
		}
	}()
	s.Yield()
}

func TestHotLoopIsReportedWithItsStack(t *testing.T) {
	s := New(Options{HotLoop: 50 * time.Millisecond})
	// No Close: the stuck goroutine cannot be unwound; it is released below.
	release := make(chan struct{})
	s.Go("calm", func() { s.Sleep(time.Hour) })
	s.Go("spinner", func() {
		s.Sleep(time.Millisecond) // calm is asleep (suspended in Sleep) by then
		plantedHotLoop(release)
	})
	err := s.Run()
	close(release)
	var he *HotLoopError
	if !errors.As(err, &he) {
		t.Fatalf("got %v, want a *HotLoopError", err)
	}
	if he.Goroutine != "spinner" {
		t.Fatalf("got goroutine %q, want spinner", he.Goroutine)
	}
	if !strings.Contains(he.Stack, "plantedHotLoop") {
		t.Fatalf("stack does not show the hot loop:\n%s", he.Stack)
	}
	// Only the holder's: calm is suspended in Sleep, awaiting the baton.
	if strings.Count(he.Stack, "(*Scheduler).trampoline") != 1 {
		t.Fatalf("want the stack of the holder alone, got:\n%s", he.Stack)
	}
	s.Close() // a no-op after a hot loop, and must not block
}

// plantedHotLoop spins without reaching a scheduling point until released
// (real code would spin forever; the test must not leak a spinning
// goroutine), or for a minute at most: a broken watchdog then fails the
// test instead of hanging it.
func plantedHotLoop(release chan struct{}) {
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		select {
		case <-release:
			return
		default:
		}
	}
}
