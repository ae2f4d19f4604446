package run

import (
	"fmt"
	"testing"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/model/ops"
	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/sim"
	"github.com/podsim/podsim/world"
)

// streamChecker checks the contract of the event stream that recorders and
// oracles rely on.
type streamChecker struct {
	last     int64
	locked   string // goroutine holding the pod lock
	open     map[int]ops.Input
	inFlight map[string]ops.SyncFn // by UID
	settled  bool
	drained  bool // the drain's end was noted (after Settled)
	events   int
	kinds    map[history.EventKind]int
	err      error
}

func (c *streamChecker) fail(ev history.Event, format string, args ...any) {
	if c.err == nil {
		c.err = fmt.Errorf("event %d (%s by %s): %s", ev.Seq, ev.Kind, ev.Goroutine, fmt.Sprintf(format, args...))
	}
}

// drainNote: n is one of the worker-goroutine notes the drain after
// Settled sends.
func drainNote(n history.Note) bool {
	switch n.(type) {
	case history.WorkerStarted, history.WorkerEnded, history.WorkerDrainEnded:
		return true
	}
	return false
}

func (c *streamChecker) Observe(ev history.Event) {
	c.events++
	c.kinds[ev.Kind]++
	if ev.Kind == history.Noted {
		// A note is not a step of the stream: it carries the seq of the
		// event before it, and says what a kubelet actor did. After
		// Settled only the drain's worker-goroutine notes come, the
		// drain's end last.
		if ev.Seq != c.last || ev.Note == nil || ev.Input != nil || c.drained || (c.settled && !drainNote(ev.Note)) {
			c.fail(ev, "a note at seq %d after %d (note %v, input %v, settled %v, drained %v)", ev.Seq, c.last, ev.Note, ev.Input,
				c.settled, c.drained)
		}
		_, c.drained = ev.Note.(history.WorkerDrainEnded)
		return
	}
	if ev.Seq != c.last+1 {
		c.fail(ev, "seq %d after %d", ev.Seq, c.last)
	}
	c.last = ev.Seq
	if c.settled {
		c.fail(ev, "after Settled")
	}
	switch ev.Kind {
	case history.LockAcquired:
		if c.locked != "" {
			c.fail(ev, "pod lock already held by %s", c.locked)
		}
		c.locked = ev.Goroutine
	case history.LockReleasing:
		if c.locked != ev.Goroutine {
			c.fail(ev, "releasing a pod lock held by %q", c.locked)
		}
		c.locked = ""
	case history.ClientCall:
		c.open[ev.ID] = ev.Input
	case history.ClientReturn:
		if _, ok := c.open[ev.ID]; !ok {
			c.fail(ev, "return of unknown call %d", ev.ID)
		}
		delete(c.open, ev.ID)
	case history.CallbackBegin:
		b := ev.Input.(ops.SyncBegin)
		if fn := c.inFlight[b.UID]; fn != ops.NoSync {
			c.fail(ev, "%s begins for %s while %s is in flight", b.Fn, b.UID, fn)
		}
		c.inFlight[b.UID] = b.Fn
	case history.CallbackEnd:
		e := ev.Input.(ops.SyncEnd)
		if c.inFlight[e.UID] != e.Fn {
			c.fail(ev, "%s ends for %s, in flight: %s", e.Fn, e.UID, c.inFlight[e.UID])
		}
		c.inFlight[e.UID] = ops.NoSync
	case history.Settled:
		c.settled = true
		if len(c.open) > 0 {
			c.fail(ev, "%d calls never returned: %v", len(c.open), c.open)
		}
	}
}

func TestEventStreamContract(t *testing.T) {
	total := map[history.EventKind]int{}
	for seed := uint64(0); seed < 300; seed++ {
		st := plan.SeedStreams(seed)
		pl := plan.GenerateSwarm(st.Plan)
		w := world.NewWorld(pl, st.Schedule, st.Faults, sim.RandomWalk{})
		c := &streamChecker{open: map[int]ops.Input{}, inFlight: map[string]ops.SyncFn{}, kinds: map[history.EventKind]int{}}
		w.Observe(c.Observe)
		if err := w.Run(); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if c.err != nil {
			t.Fatalf("seed %d: %v\n%v", seed, c.err, pl)
		}
		if !c.settled || !c.drained {
			t.Fatalf("seed %d: Settled %v, the drain's end %v, want both", seed, c.settled, c.drained)
		}
		for k, n := range c.kinds {
			total[k] += n
		}
	}
	// Every kind of event occurs somewhere in the sweep, or the test above
	// checked nothing of it.
	for _, k := range []history.EventKind{history.ClientCall, history.ClientReturn, history.LockAcquired,
		history.LockReleasing, history.CallbackBegin, history.CallbackEnd, history.Fired, history.Settled, history.Noted} {
		if total[k] == 0 {
			t.Errorf("no %s event in 300 seeds", k)
		}
	}
	t.Logf("event kinds over 300 seeds: %v", total)
}
