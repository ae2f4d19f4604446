// Package simrt runs the pod workers on the simulated scheduler: it adapts
// a *sim.Scheduler to workers.Runtime. Every goroutine the workers start is
// a sim daemon (a pod worker waiting for its next update is idle, not
// deadlocked); every mutex, signal and event is a sim primitive, so every
// lock, wake-up and cancellation is a scheduling point chosen by the seed.
package simrt

import (
	"sync"
	"time"

	"github.com/podsim/podsim/sim"
	"github.com/podsim/podsim/workers"
)

// Runtime implements workers.Runtime over a sim.Scheduler.
type Runtime struct {
	S *sim.Scheduler
	// BeforeUnlock, if set, runs while the mutex is still held, just before
	// every Unlock of a mutex made by NewMutex: the hook for checking
	// invariants at every release of the pod lock without adding a
	// scheduling point.
	BeforeUnlock func(name string)
	// AfterLock, if set, runs as soon as a mutex made by NewMutex is
	// acquired, before the caller continues: with BeforeUnlock it brackets
	// every critical section, which is where pod-worker operations take
	// effect.
	AfterLock func(name string)
	// OnFire, if set, runs as an event made by NewEvent fires, before its
	// waiters are woken: how recorders see cancellations and kill
	// completions happen.
	OnFire func(name string)
	// probing: Probe runs; the mutexes' Lock and Unlock do nothing.
	probing bool
	// mutexes is where NewMutex takes its first mutexes from: the pod
	// workers make two (the pod lock and the work queue's), which so come
	// with the Runtime's allocation rather than one each; made counts them.
	mutexes [2]hookedMutex
	made    int
}

// Probe runs f, which calls public methods of the pod workers that take a
// mutex made by NewMutex, from the goroutine that holds that mutex (a lock
// hook): while it runs, Lock and Unlock of those mutexes do nothing (no
// scheduling point, no hook), so f sees exactly what a caller that took the
// lock right now would see, and the run's schedule does not change. f must
// not run any other simulation operation.
func (r *Runtime) Probe(f func()) {
	r.probing = true
	defer func() { r.probing = false }()
	f()
}

var _ workers.Runtime = (*Runtime)(nil)

// New returns a Runtime over s.
func New(s *sim.Scheduler) *Runtime { return &Runtime{S: s} }

// Go starts f as a daemon goroutine.
func (r *Runtime) Go(name string, f func()) { r.S.GoDaemon(name, f) }

// NewMutex returns a sim mutex that runs the lock hooks set on r at the
// time of each call, so hooks may be set after the mutex is made.
func (r *Runtime) NewMutex(name string) sync.Locker {
	var m *hookedMutex
	if r.made < len(r.mutexes) {
		m = &r.mutexes[r.made]
		r.made++
	} else {
		m = &hookedMutex{}
	}
	m.name, m.r = name, r
	r.S.InitMutex(&m.Mutex, name)
	return m
}

// NewSignal returns a sim signal.
func (r *Runtime) NewSignal(name string) workers.Signal { return r.S.NewSignal(name) }

// NewEvent returns a sim event that runs r's OnFire hook as it fires.
func (r *Runtime) NewEvent(name string) workers.Event {
	e := &Event{}
	r.InitEvent(e, name)
	return e
}

// InitEvent makes *e, a zero Event inside a structure of the caller's
// (one that wraps it), the event NewEvent would return: the wrapper and
// the event in one allocation.
func (r *Runtime) InitEvent(e *Event, name string) {
	e.name, e.r = name, r
	r.S.InitEvent(&e.Event, name)
}

// Event is an event made by NewEvent or InitEvent: a sim event that runs
// its runtime's OnFire hook as it fires.
type Event struct {
	sim.Event // in the same allocation (Scheduler.InitEvent)
	name      string
	r         *Runtime
}

// Fire runs the OnFire hook, unless the event has fired already, and fires
// the event.
func (e *Event) Fire() {
	if f := e.r.OnFire; f != nil && !e.Event.Fired() {
		f(e.name)
	}
	e.Event.Fire()
}

// Now returns the virtual time.
func (r *Runtime) Now() time.Time { return r.S.Now() }

// Intn draws from the run's Source.
func (r *Runtime) Intn(n int) int { return r.S.Intn(n) }

type hookedMutex struct {
	sim.Mutex // in the same allocation (Scheduler.InitMutex)
	name      string
	r         *Runtime
}

func (m *hookedMutex) Lock() {
	if m.r.probing {
		return
	}
	m.Mutex.Lock()
	if f := m.r.AfterLock; f != nil {
		f(m.name)
	}
}

func (m *hookedMutex) Unlock() {
	if m.r.probing {
		return
	}
	if f := m.r.BeforeUnlock; f != nil {
		f(m.name)
	}
	m.Mutex.Unlock()
}
