package simrt

import (
	"fmt"
	"slices"
	"sync"
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

// TestProbeAddsNoSchedulingPoint: a probe from the unlock hook that locks
// and unlocks the held mutex (what a public query method does) runs no
// hook and no simulation operation: steps and trace equal those of the run
// without it, and the state it reads is the one the critical section left.
func TestProbeAddsNoSchedulingPoint(t *testing.T) {
	run := func(probe bool) (steps int64, sha string, seen []int) {
		s := sim.New(sim.Options{Source: sim.NewPCG(7)})
		defer s.Close()
		rt := New(s)
		mu := rt.NewMutex("podLock")
		counter, hooks := 0, 0
		rt.AfterLock = func(string) { hooks++ }
		rt.BeforeUnlock = func(string) {
			hooks++
			if probe {
				rt.Probe(func() {
					mu.Lock()
					seen = append(seen, counter)
					mu.Unlock()
				})
			}
		}
		for _, g := range []string{"a", "b"} {
			s.Go(g, func() {
				for range 3 {
					mu.Lock()
					counter++
					mu.Unlock()
				}
			})
		}
		if err := s.Run(); err != nil {
			t.Fatal(err)
		}
		if hooks != 12 {
			t.Fatalf("probe=%v: %d hook calls, want 12 (6 sections): the probe's Lock/Unlock ran the hooks", probe, hooks)
		}
		return s.Steps(), s.TraceSHA256(), seen
	}
	steps0, sha0, _ := run(false)
	steps1, sha1, seen := run(true)
	if steps0 != steps1 || sha0 != sha1 {
		t.Fatalf("with the probe: %d steps, trace %s; without: %d steps, trace %s", steps1, sha1[:8], steps0, sha0[:8])
	}
	if want := []int{1, 2, 3, 4, 5, 6}; !slices.Equal(seen, want) {
		t.Fatalf("the probes saw %v, want %v", seen, want)
	}
}

// TestFirstMutexesComeWithTheRuntime: the first two mutexes NewMutex makes
// (the pod workers make two) are in the Runtime's own allocation, and
// every mutex, those and the ones after, is a mutex of its own: three
// goroutines each holding a different one at once, each with its name in
// the hooks.
func TestFirstMutexesComeWithTheRuntime(t *testing.T) {
	s := sim.New(sim.Options{Source: sim.NewPCG(3)})
	defer s.Close()
	rt := New(s)
	var m0, m1 sync.Locker
	if allocs := testing.AllocsPerRun(1, func() {
		rt.made = 0 // AllocsPerRun calls this twice
		m0, m1 = rt.NewMutex("m0"), rt.NewMutex("m1")
	}); allocs != 0 {
		t.Fatalf("the first two mutexes took %v allocations, want none", allocs)
	}
	mus := []sync.Locker{m0, m1, rt.NewMutex("m2")}
	var locked []string
	rt.AfterLock = func(name string) { locked = append(locked, name) }
	held := s.NewEvent("held")
	all := 0
	for i, mu := range mus {
		s.Go(fmt.Sprint("g", i), func() {
			mu.Lock()
			if all++; all == len(mus) {
				held.Fire()
			}
			held.Wait() // every mutex is held at once
			mu.Unlock()
		})
	}
	if err := s.Run(); err != nil {
		t.Fatalf("got %v: the mutexes are not three", err)
	}
	slices.Sort(locked)
	if want := []string{"m0", "m1", "m2"}; !slices.Equal(locked, want) {
		t.Fatalf("locked %v, want %v", locked, want)
	}
}
