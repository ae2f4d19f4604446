package main

import (
	"github.com/podsim/podsim/sim"
)

// The demo's program under test is the kubelet's pending-update slot in
// miniature (BUGS.md B2): a config client sends create, kill and update for
// one pod into a single pending slot that a pod worker drains. With the
// "overwrite" slot a later update replaces a pending kill and the kill is
// lost; with the "sticky" slot termination is a flag on the record, as in
// the kubelet since 1.22, and no schedule can lose it.

type update struct{ kind string }

type mailbox struct {
	mu      *sim.Mutex
	wake    *sim.Signal
	pending *update
	sticky  bool // termination is a sticky flag, not a message
	killed  bool // a kill was accepted (sticky mode records it here)

	syncs      []string // what the worker did, in order
	terminated bool
}

func (m *mailbox) send(u update) {
	m.mu.Lock()
	if m.sticky && u.kind == "kill" {
		m.killed = true
	}
	m.pending = &u
	m.mu.Unlock()
	m.wake.Notify()
}

// work is the pod worker: it consumes the latest pending update and, once
// it has run the termination, exits.
func (m *mailbox) work(s *sim.Scheduler) {
	for m.wake.Wait() {
		m.mu.Lock()
		u, killed := m.pending, m.killed
		m.pending = nil
		m.mu.Unlock()
		if u == nil {
			continue
		}
		kind := u.kind
		if killed || kind == "kill" {
			kind = "terminate"
		}
		m.syncs = append(m.syncs, kind)
		s.Yield() // the sync call itself: other goroutines run meanwhile
		if kind == "terminate" {
			m.terminated = true
			return
		}
	}
}

// outcome of one seed.
type outcome struct {
	lost  bool // the client killed the pod, the worker never terminated it
	syncs []string
	steps int64
	trace string // only when asked for
	hash  string // only when asked for
}

func runMailbox(sticky bool, opts sim.Options, keepTrace bool) (outcome, error) {
	s := sim.New(opts)
	defer s.Close()
	m := &mailbox{mu: s.NewMutex("podLock"), wake: s.NewSignal("updates/pod-a"), sticky: sticky}
	s.GoDaemon("worker/pod-a", func() { m.work(s) })
	s.Go("config", func() {
		for _, k := range []string{"create", "kill", "update"} {
			m.send(update{kind: k})
		}
	})
	err := s.Run()
	out := outcome{lost: !m.terminated, syncs: m.syncs, steps: s.Steps()}
	if keepTrace {
		out.trace, out.hash = s.Trace(), s.TraceSHA256()
	}
	return out, err
}
