package workers

import (
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"k8s.io/utils/clock"
)

func expectPanic(t *testing.T, want string, f func()) {
	t.Helper()
	defer func() {
		t.Helper()
		r := recover()
		if msg, _ := r.(string); !strings.Contains(msg, want) {
			t.Errorf("got panic %v, want one containing %q", r, want)
		}
	}()
	f()
}

func TestRealSignal(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rt := NewRealRuntime(clock.RealClock{}, 1)
		s := rt.NewSignal("updates/a")
		if s.TryWait() {
			t.Errorf("fresh signal: got a wake-up, want none")
		}
		s.Notify()
		s.Notify() // coalesces
		if !s.TryWait() || s.TryWait() {
			t.Errorf("got other than exactly one pending wake-up")
		}
		woke := make(chan bool)
		rt.Go("waiter", func() { woke <- s.Wait() })
		synctest.Wait()
		s.Notify()
		if !<-woke {
			t.Errorf("Wait after Notify: got false, want true")
		}
		s.Notify()
		s.Close()
		if !s.Wait() || s.Wait() || s.TryWait() {
			t.Errorf("after Close: want the pending wake-up once, then false")
		}
		expectPanic(t, "workers: signal updates/a: notify after close", s.Notify)
		expectPanic(t, "workers: signal updates/a: closed twice", s.Close)
	})
}

func TestRealEvent(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rt := NewRealRuntime(clock.RealClock{}, 1)
		ev := rt.NewEvent("cancel/a#1")
		start := time.Now()
		if ev.WaitFor(3*time.Second) || time.Since(start) != 3*time.Second {
			t.Errorf("WaitFor without Fire: want false after 3s, got after %s", time.Since(start))
		}
		if ev.WaitFor(0) {
			t.Errorf("WaitFor(0) before Fire: got true")
		}
		rt.Go("firer", func() {
			time.Sleep(time.Second)
			ev.Fire()
		})
		start = time.Now()
		if !ev.WaitFor(time.Minute) || time.Since(start) != time.Second {
			t.Errorf("WaitFor with Fire after 1s: got after %s", time.Since(start))
		}
		ev.Wait()
		if !ev.Fired() || !ev.WaitFor(0) {
			t.Errorf("got not fired after Fire")
		}
		expectPanic(t, "workers: event cancel/a#1: fired twice", ev.Fire)
	})
}

func TestRealRuntimeBasics(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a, b := NewRealRuntime(nil, 7), NewRealRuntime(clock.RealClock{}, 7)
		for range 20 {
			if x, y := a.Intn(1000), b.Intn(1000); x != y {
				t.Fatalf("same seed: got %d and %d, want equal draws", x, y)
			}
		}
		if !a.Now().Equal(time.Now()) {
			t.Errorf("got Now %s, want the clock's %s", a.Now(), time.Now())
		}
		mu, n := a.NewMutex("podLock"), 0
		for range 2 {
			a.Go("incr", func() {
				mu.Lock()
				defer mu.Unlock()
				n++
			})
		}
		synctest.Wait()
		mu.Lock()
		defer mu.Unlock()
		if n != 2 {
			t.Errorf("got %d increments, want 2", n)
		}
	})
}
