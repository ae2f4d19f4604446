package scenarios

import (
	"fmt"
	"testing"

	"github.com/podsim/podsim/model"
	"github.com/podsim/podsim/sim"
)

// streamChecker checks the contract of the event stream that recorders and
// oracles rely on.
type streamChecker struct {
	last     int64
	locked   string // goroutine holding the pod lock
	open     map[int]model.Input
	inFlight map[string]model.SyncFn // by UID
	settled  bool
	events   int
	kinds    map[EventKind]int
	err      error
}

func (c *streamChecker) fail(ev Event, format string, args ...any) {
	if c.err == nil {
		c.err = fmt.Errorf("event %d (%s by %s): %s", ev.Seq, ev.Kind, ev.Goroutine, fmt.Sprintf(format, args...))
	}
}

func (c *streamChecker) Observe(_ *World, ev Event) {
	c.events++
	c.kinds[ev.Kind]++
	if ev.Seq != c.last+1 {
		c.fail(ev, "seq %d after %d", ev.Seq, c.last)
	}
	c.last = ev.Seq
	if c.settled {
		c.fail(ev, "after Settled")
	}
	switch ev.Kind {
	case LockAcquired:
		if c.locked != "" {
			c.fail(ev, "pod lock already held by %s", c.locked)
		}
		c.locked = ev.Goroutine
	case LockReleasing:
		if c.locked != ev.Goroutine {
			c.fail(ev, "releasing a pod lock held by %q", c.locked)
		}
		c.locked = ""
	case ClientCall:
		c.open[ev.ID] = ev.Input
	case ClientReturn:
		if _, ok := c.open[ev.ID]; !ok {
			c.fail(ev, "return of unknown call %d", ev.ID)
		}
		delete(c.open, ev.ID)
	case CallbackBegin:
		b := ev.Input.(model.SyncBegin)
		if fn := c.inFlight[b.UID]; fn != model.NoSync {
			c.fail(ev, "%s begins for %s while %s is in flight", b.Fn, b.UID, fn)
		}
		c.inFlight[b.UID] = b.Fn
	case CallbackEnd:
		e := ev.Input.(model.SyncEnd)
		if c.inFlight[e.UID] != e.Fn {
			c.fail(ev, "%s ends for %s, in flight: %s", e.Fn, e.UID, c.inFlight[e.UID])
		}
		c.inFlight[e.UID] = model.NoSync
	case Settled:
		c.settled = true
		if len(c.open) > 0 {
			c.fail(ev, "%d calls never returned: %v", len(c.open), c.open)
		}
	}
}

func TestEventStreamContract(t *testing.T) {
	total := map[EventKind]int{}
	for seed := uint64(0); seed < 300; seed++ {
		st := SeedStreams(seed)
		plan := GenerateSwarm(st.Plan)
		w := NewWorld(plan, st.Schedule, st.Faults, sim.RandomWalk{})
		c := &streamChecker{open: map[int]model.Input{}, inFlight: map[string]model.SyncFn{}, kinds: map[EventKind]int{}}
		w.Observe(c)
		if err := w.Run(); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if c.err != nil {
			t.Fatalf("seed %d: %v\n%v", seed, c.err, plan)
		}
		if !c.settled {
			t.Fatalf("seed %d: no Settled event", seed)
		}
		for k, n := range c.kinds {
			total[k] += n
		}
	}
	// Every kind of event occurs somewhere in the sweep, or the test above
	// checked nothing of it.
	for k := ClientCall; k <= Settled; k++ {
		if total[k] == 0 {
			t.Errorf("no %s event in 300 seeds", k)
		}
	}
	t.Logf("event kinds over 300 seeds: %v", total)
}
