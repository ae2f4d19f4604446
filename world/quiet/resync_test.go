package quiet

import (
	"errors"
	"testing"

	"github.com/podsim/podsim/workers"
)

// TestResyncRepeatsConditions: a queued resync repeats, as far as the
// config and the last sync call go, only while the pod is steady and runs,
// its last call was a SyncPod of its current version that ended without
// an error or natural completion; each condition switches it off.
func TestResyncRepeatsConditions(t *testing.T) {
	running := func() (*Watch, Config) {
		q := &Watch{}
		q.NoteCallBegin("SyncPod", "a", 2)
		q.NoteCallEnd("SyncPod", "a", nil, false)
		return q, Config{InConfig: true, Steady: true, Version: 2, Runs: true}
	}
	switchedOff(t, "a repeatable resync of a", running, func(q *Watch, c Config) bool { return q.resyncRepeats("a", c) }, []condition{
		{"not steady", func(_ *Watch, c *Config) { c.Steady = false }},
		{"not running", func(_ *Watch, c *Config) { c.Runs = false }},
		{"a newer version", func(_ *Watch, c *Config) { c.Version++ }},
		{"no sync call", func(q *Watch, _ *Config) { delete(q.syncs, "a") }},
		{"SyncPod in flight", func(q *Watch, _ *Config) { q.NoteCallBegin("SyncPod", "a", 2) }},
		{"SyncPod failed", func(q *Watch, _ *Config) {
			q.NoteCallBegin("SyncPod", "a", 2)
			q.NoteCallEnd("SyncPod", "a", errors.New("boom"), false)
		}},
		{"natural completion", func(q *Watch, _ *Config) {
			q.NoteCallBegin("SyncPod", "a", 2)
			q.NoteCallEnd("SyncPod", "a", nil, true)
		}},
		{"a termination since", func(q *Watch, _ *Config) {
			q.NoteCallBegin("SyncTerminatingPod", "a", 2)
			q.NoteCallEnd("SyncTerminatingPod", "a", nil, false)
		}},
	})
}

// condition is one way a rule's premise falls short: set changes the
// watch's records or the pod's config.
type condition struct {
	name string
	set  func(q *Watch, c *Config)
}

// switchedOff checks that rule holds for what setup builds and that each
// condition, applied to a fresh setup, switches it off on its own.
func switchedOff(t *testing.T, rule string, setup func() (*Watch, Config), holds func(*Watch, Config) bool, conds []condition) {
	t.Helper()
	if q, c := setup(); !holds(q, c) {
		t.Fatalf("got no %s, want one", rule)
	}
	for _, cond := range conds {
		q, c := setup()
		cond.set(q, &c)
		if holds(q, c) {
			t.Errorf("%s: got %s, want none", cond.name, rule)
		}
	}
}

// TestIdleInSConditions: a record is idle in S only while it is started in
// S with nothing in progress or waiting and its worker there.
func TestIdleInSConditions(t *testing.T) {
	if !idleInS(idle("a")) {
		t.Fatalf("an idle running record: got not idle, want idle")
	}
	for _, tt := range []struct {
		name string
		set  func(s *workers.PodStateSnapshot)
	}{
		{"terminating", func(s *workers.PodStateSnapshot) { s.State = "T" }},
		{"not started", func(s *workers.PodStateSnapshot) { s.Started = false }},
		{"termination requested", func(s *workers.PodStateSnapshot) { s.TerminationRequested = true }},
		{"working", func(s *workers.PodStateSnapshot) { s.Working = true }},
		{"in flight", func(s *workers.PodStateSnapshot) { s.InFlight = true }},
		{"an update pending", func(s *workers.PodStateSnapshot) { s.HasPendingUpdate = true }},
		{"a kill waiting", func(s *workers.PodStateSnapshot) { s.PendingKills = 1 }},
		{"restart requested", func(s *workers.PodStateSnapshot) { s.RestartRequested = true }},
		{"no worker", func(s *workers.PodStateSnapshot) { s.HasWorker = false }},
	} {
		s := idle("a")
		tt.set(&s)
		if idleInS(s) {
			t.Errorf("%s: got idle, want not", tt.name)
		}
	}
}

// TestCanRepeatConditions: the world-wide conditions hold only in a world
// as written whose runtime can only repeat; MutantShortcuts lifts the
// first, CarelessResync (a wrong rule) both.
func TestCanRepeatConditions(t *testing.T) {
	for _, tt := range []struct {
		name                      string
		asWritten, runtimeRepeats bool
		rules                     Rules
		want                      bool
	}{
		{"as written, repeating runtime", true, true, Rules{}, true},
		{"a mutant", false, true, Rules{}, false},
		{"a runtime that may change", true, false, Rules{}, false},
		{"a mutant, with its shortcuts", false, true, Rules{MutantShortcuts: true}, true},
		{"a runtime that may change, with a mutant's shortcuts", true, false, Rules{MutantShortcuts: true}, false},
		{"careless", false, false, Rules{CarelessResync: true}, true},
	} {
		f := plainWorld()
		f.asWritten, f.runtimeRepeats = tt.asWritten, tt.runtimeRepeats
		q := &Watch{world: f, Rules: tt.rules}
		if got := q.canRepeat(); got != tt.want {
			t.Errorf("%s: got %v, want %v", tt.name, got, tt.want)
		}
	}
}
