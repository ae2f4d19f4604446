package simrt

import (
	"testing"
	"time"

	"github.com/podsim/podsim/sim"
)

// TestRuntimeIsTheScheduler: primitives, time and chance come from the sim,
// and the unlock hook runs while the mutex is still held.
func TestRuntimeIsTheScheduler(t *testing.T) {
	s := sim.New(sim.Options{Source: sim.NewReplay(nil)})
	defer s.Close()
	rt := New(s)
	var held []bool
	var lockedBy []string
	locked := false
	rt.BeforeUnlock = func(name string) { held = append(held, locked && name == "podLock") }
	rt.AfterLock = func(name string) { lockedBy = append(lockedBy, s.Goroutine()+" "+name) }
	var fires []string
	rt.OnFire = func(name string) { fires = append(fires, s.Goroutine()+" fires "+name) }
	mu := rt.NewMutex("podLock")
	sig := rt.NewSignal("updates/a")
	done := rt.NewEvent("done/a")
	rt.Go("worker/a", func() {
		for sig.Wait() {
			mu.Lock()
			locked = true
			mu.Unlock()
			locked = false
			done.Fire()
		}
	})
	var fired bool
	var at time.Time
	s.Go("client", func() {
		sig.Notify()
		fired = done.WaitFor(time.Second)
		at = rt.Now()
		_ = rt.Intn(5)
	})
	if err := s.Run(); err != nil {
		t.Fatalf("got %v, want nil: a worker waiting on its signal is a daemon", err)
	}
	if !fired || len(held) != 1 || !held[0] {
		t.Fatalf("got fired=%v hook=%v, want true and [true]", fired, held)
	}
	if len(lockedBy) != 1 || lockedBy[0] != "worker/a podLock" {
		t.Fatalf("got locks %v, want [worker/a podLock]", lockedBy)
	}
	if len(fires) != 1 || fires[0] != "worker/a fires done/a" {
		t.Fatalf("got fires %v, want [worker/a fires done/a]", fires)
	}
	if !at.Equal(s.Now()) {
		t.Fatalf("runtime Now %v, scheduler Now %v", at, s.Now())
	}
}
