package run

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/oracle"
	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/sim"
	"github.com/podsim/podsim/world"
)

// TestHotLoopInAWorldActorEndsOnlyItsSeed plants a hot loop in a world
// actor: an oracle that, at the run's 20th event, spins without reaching a
// scheduling point in the goroutine that emitted it. The seed's result is
// a hot-loop error naming that goroutine, with the planted loop in its
// stack, found by the scheduler's watchdog at its default bound (as every
// seed runs); and a lane that runs it between other seeds goes on: the
// seeds after it give the results they give without it.
func TestHotLoopInAWorldActorEndsOnlyItsSeed(t *testing.T) {
	t.Parallel()
	f := familyNamed(t, "early-kill")
	want := make([]Result, 4)
	for i := range want {
		want[i] = RunSeed(f, uint64(i), sim.RandomWalk{}, CheckOptions{})
	}
	release := make(chan struct{})
	defer close(release)
	for i := range want {
		if i == 2 {
			plantedHotLoopSeed(t, f, 100, release)
		}
		if got := RunSeed(f, uint64(i), sim.RandomWalk{}, CheckOptions{}); got.TraceSHA != want[i].TraceSHA || got.Failed() != want[i].Failed() {
			t.Errorf("seed %d after the hot loop: got %v (%s), want %v (%s)", i, got, got.TraceSHA, want[i], want[i].TraceSHA)
		}
	}
}

// plantedHotLoopSeed runs seed of f with a spinning oracle and checks the
// result.
func plantedHotLoopSeed(t *testing.T, f plan.Family, seed uint64, release chan struct{}) {
	st := plan.SeedStreams(seed)
	w := world.NewWorld(f.Generate(st.Plan), st.Schedule, st.Faults, sim.RandomWalk{})
	spin := &spinningOracle{s: w.S, at: 20, release: release}
	start := time.Now()
	r := judgeWith(w, CheckOptions{}, []oracle.Oracle{spin})
	var he *sim.HotLoopError
	if !errors.As(r.Err, &he) {
		t.Fatalf("got %v, want a hot loop", r)
	}
	if he.Goroutine != spin.in || spin.in == "" || !strings.Contains(he.Stack, "plantedSpin") {
		t.Fatalf("got a hot loop in %q (stack:\n%s)\nwant one in %q, in plantedSpin", he.Goroutine, he.Stack, spin.in)
	}
	if SchedulerErrorKind(r.Err) != "hot-loop" || time.Since(start) < sim.DefaultHotLoop {
		t.Fatalf("got %s after %v, want a hot-loop after the default bound %v", SchedulerErrorKind(r.Err), time.Since(start), sim.DefaultHotLoop)
	}
}

// spinningOracle spins at its at-th event in the goroutine that emitted it.
type spinningOracle struct {
	s       *sim.Scheduler
	at      int
	seen    int
	in      string // the goroutine it spins in
	release chan struct{}
}

func (o *spinningOracle) Observe(_ oracle.View, _ *history.Event) {
	if o.seen++; o.seen == o.at {
		o.in = o.s.Goroutine()
		plantedSpin(o.release)
	}
}

func (*spinningOracle) Finish(oracle.View, error) []history.Violation { return nil }

// plantedSpin spins without reaching a scheduling point until released, or
// for a minute at most (a broken watchdog fails the test, not hangs it).
func plantedSpin(release chan struct{}) {
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		select {
		case <-release:
			return
		default:
		}
	}
}
