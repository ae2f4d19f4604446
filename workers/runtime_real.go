package workers

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"k8s.io/utils/clock"
)

// RealRuntime is the production Runtime: real goroutines, sync.Mutex,
// channels, and a k8s.io/utils clock. It is the only file of the package
// allowed to touch them (arch_test.go enforces it). Under testing/synctest
// with clock.RealClock{} its time is the bubble's fake time, which is how the
// package tests run the pod workers fast and under -race.
type RealRuntime struct {
	clock clock.Clock
	// rngLock guards rng: Intn is called from every worker.
	rngLock sync.Mutex
	rng     *rand.Rand
}

// NewRealRuntime returns a runtime over c (clock.RealClock{} if nil) whose
// jitter comes from a PCG source seeded with seed, owned by the instance.
func NewRealRuntime(c clock.Clock, seed uint64) *RealRuntime {
	if c == nil {
		c = clock.RealClock{}
	}
	return &RealRuntime{clock: c, rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
}

// Go starts f on a new goroutine; the name is only for simulated traces.
func (r *RealRuntime) Go(_ string, f func()) {
	go f()
}

// NewMutex returns a sync.Mutex.
func (r *RealRuntime) NewMutex(string) sync.Locker {
	return &sync.Mutex{}
}

// NewSignal returns a channel-backed 1-slot wake-up.
func (r *RealRuntime) NewSignal(name string) Signal {
	return &realSignal{name: name, ch: make(chan struct{}, 1)}
}

// NewEvent returns a fire-once Event backed by a closed channel.
func (r *RealRuntime) NewEvent(name string) Event {
	return &realEvent{name: name, clock: r.clock, ch: make(chan struct{})}
}

// Now reads the clock.
func (r *RealRuntime) Now() time.Time {
	return r.clock.Now()
}

// Intn draws from the instance's seeded source.
func (r *RealRuntime) Intn(n int) int {
	r.rngLock.Lock()
	defer r.rngLock.Unlock()
	return r.rng.IntN(n)
}

// realSignal is the kubelet's chan struct{} of capacity 1. The lock orders
// Notify against Close so that a Notify after Close panics with a clear
// message instead of a send on a closed channel racing the close.
type realSignal struct {
	name   string
	lock   sync.Mutex
	closed bool
	ch     chan struct{}
}

func (s *realSignal) Notify() {
	s.lock.Lock()
	defer s.lock.Unlock()
	if s.closed {
		panic(fmt.Sprintf("workers: signal %s: notify after close", s.name))
	}
	select {
	case s.ch <- struct{}{}:
	default:
	}
}

func (s *realSignal) Wait() bool {
	_, ok := <-s.ch
	return ok
}

func (s *realSignal) TryWait() bool {
	select {
	case _, ok := <-s.ch:
		return ok
	default:
		return false
	}
}

func (s *realSignal) Close() {
	s.lock.Lock()
	defer s.lock.Unlock()
	if s.closed {
		panic(fmt.Sprintf("workers: signal %s: closed twice", s.name))
	}
	s.closed = true
	close(s.ch)
}

// realEvent is a channel closed once.
type realEvent struct {
	name  string
	clock clock.Clock
	lock  sync.Mutex
	fired bool
	ch    chan struct{}
}

func (e *realEvent) Fire() {
	e.lock.Lock()
	defer e.lock.Unlock()
	if e.fired {
		panic(fmt.Sprintf("workers: event %s: fired twice", e.name))
	}
	e.fired = true
	close(e.ch)
}

func (e *realEvent) Fired() bool {
	e.lock.Lock()
	defer e.lock.Unlock()
	return e.fired
}

func (e *realEvent) Wait() {
	<-e.ch
}

func (e *realEvent) WaitFor(d time.Duration) bool {
	if d <= 0 {
		return e.Fired()
	}
	timer := e.clock.NewTimer(d)
	defer timer.Stop()
	select {
	case <-e.ch:
		return true
	case <-timer.C():
		return e.Fired()
	}
}
