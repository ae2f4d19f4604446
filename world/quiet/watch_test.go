package quiet

import (
	"testing"
	"time"

	"github.com/podsim/podsim/model/ops"
	"github.com/podsim/podsim/workers"
)

const (
	period   = 2 * time.Second // housekeeping's
	quietFor = 10 * time.Second
)

// begin starts a watch of f's settle phase at 0 for four minutes.
func begin(f *fakeWorld, r Rules) *Watch {
	q := &Watch{Rules: r}
	q.Begin(f, 0, 4*time.Minute, quietFor)
	return q
}

// tick advances f to the next housekeeping tick, makes its SyncKnownPods
// (answering f.known, or known if that is nil) and checks it; before runs
// first, at the tick's time.
func tick(q *Watch, f *fakeWorld, known workers.KnownPods, before func()) bool {
	f.elapsed += period
	if before != nil {
		before()
	}
	if f.known != nil {
		known = f.known
	}
	q.NoteInput(ops.SyncKnownPods{})
	q.NoteKnown(known)
	return q.Tick()
}

// quietTick is the time of the tick that finds the world quiescent (0:
// none in a minute); disturb runs before each tick. SyncKnownPods answers
// f.known, else one running pod.
func quietTick(q *Watch, f *fakeWorld, disturb func()) time.Duration {
	running := workers.KnownPods{{UID: "a", PodWorkerSync: workers.PodWorkerSync{State: workers.SyncPodWork}}}
	for f.elapsed < time.Minute {
		if tick(q, f, running, disturb) {
			return f.elapsed
		}
	}
	return 0
}

// TestTickQuiescentAfterQuietFor: a world that stays calm, whose only
// input is housekeeping's SyncKnownPods with the same answer, is quiescent
// at the first tick QuietFor after the first still one, and only then.
func TestTickQuiescentAfterQuietFor(t *testing.T) {
	f := plainWorld()
	q := begin(f, Rules{})
	if got := quietTick(q, f, nil); got != 12*time.Second {
		t.Fatalf("got quiescent at %v, want 12s (still from the 2s tick, for 10s)", got)
	}
	if at, ok := q.QuietAt(); !ok || at != 12*time.Second || q.Watching() {
		t.Errorf("got QuietAt %v, %v and watching %v, want 12s, true, false", at, ok, q.Watching())
	}
	if q.End() {
		t.Errorf("End after the quiet tick: got true, want false (it had ended)")
	}
}

// TestTickStillnessBroken: an input besides SyncKnownPods, a changed
// SyncKnownPods answer, a stirring goroutine or a busy actor at the 8s
// tick restarts the wait; a query does not.
func TestTickStillnessBroken(t *testing.T) {
	for _, tt := range []struct {
		name    string
		disturb func(q *Watch, f *fakeWorld)
		want    time.Duration
	}{
		{"a query", func(q *Watch, _ *fakeWorld) { q.NoteInput(ops.Query{}) }, 12 * time.Second},
		{"an UpdatePod", func(q *Watch, _ *fakeWorld) { q.NoteInput(ops.UpdatePod{}) }, 18 * time.Second},
		{"another answer", func(_ *Watch, f *fakeWorld) { f.known = workers.KnownPods{} }, 20 * time.Second},
		{"stirring", func(_ *Watch, f *fakeWorld) { f.stirring = true }, 20 * time.Second},
		{"busy", func(_ *Watch, f *fakeWorld) { f.busy = true }, 20 * time.Second},
	} {
		f := plainWorld()
		q := begin(f, Rules{})
		got := quietTick(q, f, func() {
			f.stirring, f.busy, f.known = false, false, nil
			if f.elapsed == 8*time.Second {
				tt.disturb(q, f)
			}
		})
		if got != tt.want {
			t.Errorf("%s at 8s: got quiescent at %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestTickQueuedEntries: a queued entry keeps the world busy while it is
// a pod in config whose UpdatePod may change something; not when its pod
// left config, its resync or refused retry can only repeat, or it falls
// due after the settle phase (only in a world that takes the shortcuts).
func TestTickQueuedEntries(t *testing.T) {
	for _, tt := range []struct {
		name  string
		set   func(q *Watch, f *fakeWorld)
		rules Rules
		quiet bool
	}{
		{"a pod in config", func(*Watch, *fakeWorld) {}, Rules{}, false},
		{"a pod out of config", func(_ *Watch, f *fakeWorld) { f.configs["a"] = Config{} }, Rules{}, true},
		{"past the settle phase", func(_ *Watch, f *fakeWorld) { f.entries = nil; f.queue("a", 5*time.Minute) }, Rules{}, true},
		{"past the settle phase, kept", func(_ *Watch, f *fakeWorld) { f.entries = nil; f.queue("a", 5*time.Minute) },
			Rules{KeepPastSettle: true}, false},
		{"past the settle phase, a mutant", func(_ *Watch, f *fakeWorld) {
			f.entries, f.asWritten = nil, false
			f.queue("a", 5*time.Minute)
		}, Rules{}, false},
		{"a repeating resync", repeatingResync, Rules{}, true},
		{"a resync, a runtime that may change", func(q *Watch, f *fakeWorld) {
			repeatingResync(q, f)
			f.runtimeRepeats = false
		}, Rules{}, false},
		{"a resync, not idle", func(q *Watch, f *fakeWorld) {
			repeatingResync(q, f)
			f.states[0].Working = true
		}, Rules{}, false},
	} {
		f := plainWorld()
		f.configs["a"] = Config{InConfig: true, Steady: true, Version: 1}
		f.queue("a", 30*time.Second)
		q := begin(f, tt.rules)
		tt.set(q, f)
		if got := quietTick(q, f, nil); (got != 0) != tt.quiet {
			t.Errorf("%s: got quiescent at %v, want quiescent %v", tt.name, got, tt.quiet)
		}
	}
}

// repeatingResync makes "a" a running pod, idle in S after a SyncPod of
// its version.
func repeatingResync(q *Watch, f *fakeWorld) {
	f.configs["a"] = Config{InConfig: true, Steady: true, Version: 1, Runs: true}
	f.states = []workers.PodStateSnapshot{idle("a")}
	q.NoteCallBegin("SyncPod", "a", 1)
	q.NoteCallEnd("SyncPod", "a", nil, false)
}

// TestTickWaiterRetries: a static waiter's retry behind a running holder
// keeps neither the queue busy nor, once proven, counts as an input; the
// quiet ticks are kept while such a retry falls due in the wait.
func TestTickWaiterRetries(t *testing.T) {
	f := plainWorld()
	q := begin(f, Rules{})
	repeatingResync(q, f)
	f.configs["b"] = Config{InConfig: true, Steady: true, Static: true, Version: 1}
	f.states = append(f.states, waiting("b", "web_default"))
	f.holders["web_default"] = "a"
	noteStaticUpdate(q, "b", workers.SyncPodSync, 1, false)
	f.queue("b", 5*time.Second)
	retry := func() {
		if f.elapsed == 6*time.Second { // the sync loop makes the retry
			q.SyncDue("b")
			noteStaticUpdate(q, "b", workers.SyncPodSync, 1, false)
			q.NoteInput(ops.UpdatePod{})
		}
		if q.NextTick(f.elapsed, period) != period {
			t.Errorf("at %v: got a skip, want every tick while a retry falls due in the wait", f.elapsed)
		}
	}
	if got := quietTick(q, f, retry); got != 12*time.Second {
		t.Errorf("got quiescent at %v, want 12s", got)
	}
	if q.Repeated() != 1 {
		t.Errorf("got %d repeated retries, want 1", q.Repeated())
	}
}

// TestNextTickSkips: once a tick finds the world still, the daemons sleep
// to the first tick at or after the end of the wait or the next due entry,
// in a world that takes the shortcuts and skips; otherwise one period.
func TestNextTickSkips(t *testing.T) {
	for _, tt := range []struct {
		name  string
		rules Rules
		set   func(f *fakeWorld)
		want  time.Duration
	}{
		{"to the end of the wait", Rules{}, func(*fakeWorld) {}, 8 * time.Second},
		{"to a due entry", Rules{}, func(f *fakeWorld) { f.queue("gone", 7*time.Second) }, 4 * time.Second},
		{"a careless skip past a due entry", Rules{CarelessSkip: true}, func(f *fakeWorld) { f.queue("gone", 7*time.Second) }, 8 * time.Second},
		{"every tick kept", Rules{TickAll: true}, func(*fakeWorld) {}, period},
		{"the full phase", Rules{Full: true}, func(*fakeWorld) {}, period},
		{"a mutant", Rules{}, func(f *fakeWorld) { f.asWritten = false }, period},
	} {
		f := plainWorld()
		q := begin(f, tt.rules)
		tt.set(f)
		known := workers.KnownPods{}
		tick(q, f, known, nil) // 2s: the first still tick
		tick(q, f, known, nil) // 4s: still, skips
		if got := q.NextTick(f.elapsed, period); got != tt.want {
			t.Errorf("%s: got a sleep of %v at %v, want %v", tt.name, got, f.elapsed, tt.want)
		}
	}
}
