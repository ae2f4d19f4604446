package quiet

import (
	"testing"
	"time"

	"github.com/podsim/podsim/workers"
)

// TestNextTickSkipsIdle: a world the queue keeps busy (a resync that may
// end its pod: the runtime does not only repeat) skips from its second
// idle tick to the first tick at or after the entry's due time, in a
// world that takes the shortcuts and skips idle ticks; otherwise, and
// while something stirs, an actor is busy or the answer changed, one
// period; a calm world is the quiet ticks' business (skip.go). The
// careless skip sleeps past the entry to the end of the phase.
func TestNextTickSkipsIdle(t *testing.T) {
	for _, tt := range []struct {
		name  string
		rules Rules
		set   func(f *fakeWorld)
		want  time.Duration
	}{
		{"to the due entry", Rules{}, func(*fakeWorld) {}, 26 * time.Second},
		{"idle ticks kept", Rules{TickIdle: true}, func(*fakeWorld) {}, period},
		{"the full phase", Rules{Full: true}, func(*fakeWorld) {}, period},
		{"a mutant", Rules{}, func(f *fakeWorld) { f.asWritten = false }, period},
		{"a mutant, shortcuts forced", Rules{MutantShortcuts: true}, func(f *fakeWorld) { f.asWritten = false }, 26 * time.Second},
		{"stirring", Rules{}, func(f *fakeWorld) { f.stirring = true }, period},
		{"busy", Rules{}, func(f *fakeWorld) { f.busy = true }, period},
		{"another answer", Rules{}, func(f *fakeWorld) { f.known = workers.KnownPods{} }, period},
		{"calm: the entry past the phase's end", Rules{}, func(f *fakeWorld) { f.entries = nil; f.queue("a", 5*time.Minute) }, period},
		{"careless", Rules{CarelessIdle: true}, func(*fakeWorld) {}, 4*time.Minute - 4*time.Second},
	} {
		f := plainWorld()
		f.runtimeRepeats = false // natural completion: the resync may end the pod
		f.configs["a"] = Config{InConfig: true, Steady: true, Version: 1, Runs: true}
		f.queue("a", 30*time.Second)
		q := begin(f, tt.rules)
		known := workers.KnownPods{{UID: "a", PodWorkerSync: workers.PodWorkerSync{State: workers.SyncPodWork}}}
		tick(q, f, known, nil)                  // 2s: the first idle tick
		tick(q, f, known, func() { tt.set(f) }) // 4s: idle again, skips
		if got := q.NextTick(f.elapsed, period); got != tt.want {
			t.Errorf("%s: got a sleep of %v at %v, want %v", tt.name, got, f.elapsed, tt.want)
		}
	}
}
