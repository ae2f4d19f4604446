package run

import (
	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/oracle"
	"github.com/podsim/podsim/oracle/conform"
	"github.com/podsim/podsim/oracle/coverage"
	"github.com/podsim/podsim/oracle/linearize"
	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/sim"
	"github.com/podsim/podsim/world"
)

// Lane is what one lane of a sweep (one goroutine running seeds one after
// another) reuses from seed to seed instead of building afresh: the
// oracles, the coverage tracker and the marker, each emptied by its reset
// (oracle.Resetter, conform.Reuse, linearize.Reuse, …) before the next
// seed, so that a seed run on a lane gives exactly the result RunSeed
// gives it (TestLaneSeedsAreFreshSeeds). A Lane belongs to one goroutine:
// parallel lanes each have their own. The zero value is ready; a nil *Lane
// builds everything afresh (RunSeed).
type Lane struct {
	conform oracle.Oracle
	slots   [slots]oracle.Oracle // the run's oracles an oracle.Resetter empties, by slot
	cov     *coverage.Tracker
	marks   *history.Marker
	fan     fanout // the lists judgeOn hands events out by
	// epochs are the per-epoch oracle sets (defaultOracles) of the runs so
	// far: a run's k-th kubelet process reuses the k-th. epoch is the run's
	// epochOracles, handing them out (nextEpoch: the run's options and
	// world, and the sets handed out so far).
	epochs      [][]oracle.Oracle
	epoch       epochOracles
	epochOpts   CheckOptions
	epochWorld  *world.World
	epochsTaken int
	// streams are the seed's choice streams, reseeded (plan.ReseedStreams).
	streams plan.Streams
	// world is the last seed's world, built again for the next
	// (world.World.Renew): nothing of a seed's holds it once its result is made.
	world *world.World
	// leak names a structure the lane reuses without emptying it: a
	// deliberately broken lane, for the test that shows
	// TestLaneSeedsAreFreshSeeds' comparison catches a leak. "" in use.
	leak string
}

// RunSeed is run.RunSeed on the lane's reused structures: the same result.
func (l *Lane) RunSeed(f plan.Family, seed uint64, strategy sim.Strategy, opts CheckOptions) Result {
	r, s, _ := runSeedOn(l, f, seed, strategy, opts)
	s.Recycle()
	return r
}

// The slots of the oracles one per run that an oracle.Resetter empties.
const (
	slotKubelet = iota
	slotRequeue
	slotKillNow
	slotFreshness
	slotWorkerLeaks
	slots
)

// slotNames name the slots, for Lane.leak.
var slotNames = [slots]string{"kubelet", "requeue", "killnow", "freshness", "leaks"}

// reused is the oracle in slot i, emptied (oracle.Resetter), or fresh()
// when the slot is empty or l is nil.
func (l *Lane) reused(i int, fresh func() oracle.Oracle) oracle.Oracle {
	if l == nil {
		return fresh()
	}
	return keep(&l.slots[i], l.leak == slotNames[i], fresh, func(o oracle.Oracle) oracle.Oracle {
		o.(oracle.Resetter).Reset()
		return o
	})
}

// keep is *slot emptied by reset (unless leaked: a broken lane's), or
// fresh() when the slot is empty.
func keep[T comparable](slot *T, leaked bool, fresh func() T, reset func(T) T) T {
	var none T
	switch {
	case *slot == none:
		*slot = fresh()
	case !leaked:
		*slot = reset(*slot)
	}
	return *slot
}

// conformFor is the plan-conformance oracle for a run of p.
func (l *Lane) conformFor(p plan.Plan) oracle.Oracle {
	if l == nil {
		return conform.New(p)
	}
	return keep(&l.conform, l.leak == "conform", func() oracle.Oracle { return conform.New(p) },
		func(o oracle.Oracle) oracle.Oracle { return conform.Reuse(o, p) })
}

// coverage is the run's coverage tracker.
func (l *Lane) coverage() *coverage.Tracker {
	if l == nil {
		return coverage.New()
	}
	return keep(&l.cov, l.leak == "coverage", coverage.New, func(t *coverage.Tracker) *coverage.Tracker { t.Reset(); return t })
}

// marker is the run's coverage marker.
func (l *Lane) marker() *history.Marker {
	if l == nil {
		return history.NewMarker()
	}
	return keep(&l.marks, l.leak == "marker", history.NewMarker, func(m *history.Marker) *history.Marker { m.Reset(); return m })
}

// epochOracles are the run's per-epoch oracles: each kubelet process's set
// from the lane's sets, emptied, or made (defaultOracles).
func (l *Lane) epochOracles(opts CheckOptions, w *world.World) *epochOracles {
	if l == nil {
		return newEpochOracles(func() []oracle.Oracle { return defaultOracles(opts, w) })
	}
	l.epochOpts, l.epochWorld, l.epochsTaken = opts, w, 0
	if l.epoch.make == nil {
		l.epoch.make = l.nextEpoch // made once: a method value is an allocation
	}
	clear(l.epoch.past)
	l.epoch.past = l.epoch.past[:0]
	l.epoch.cur, l.epoch.lastAt = l.epoch.make(), 0
	return &l.epoch
}

// nextEpoch is the oracle set of the run's next kubelet process.
func (l *Lane) nextEpoch() []oracle.Oracle {
	n, opts, w := l.epochsTaken, l.epochOpts, l.epochWorld
	l.epochsTaken++
	if n == len(l.epochs) {
		l.epochs = append(l.epochs, defaultOracles(opts, w))
	} else if l.leak != "epoch" {
		set := l.epochs[n]
		set[0] = linearize.Reuse(set[0], linearizeOptions(opts, w))
		for _, o := range set[1:] {
			o.(oracle.Resetter).Reset()
		}
	}
	return l.epochs[n]
}

// newWorld is world.NewWorld(p, st's streams, strategy), in the memory
// of the lane's last world.
func (l *Lane) newWorld(p plan.Plan, st plan.Streams, strategy sim.Strategy) *world.World {
	switch {
	case l == nil:
		return world.NewWorld(p, st.Schedule, st.Faults, strategy)
	case l.world == nil:
		l.world = new(world.World)
	}
	return l.world.Renew(p, st.Schedule, st.Faults, strategy)
}

// seedStreams are seed's choice streams (plan.SeedStreams), the lane's
// reseeded; its plans are built in the array of the last one
// (plan.LaneStreams: nothing reads a seed's plan once the next is drawn).
func (l *Lane) seedStreams(seed uint64) plan.Streams {
	switch {
	case l == nil:
		return plan.SeedStreams(seed)
	case l.streams.Plan == nil:
		l.streams = plan.LaneStreams(seed)
	case l.leak != "streams":
		plan.ReseedStreams(l.streams, seed)
	}
	return l.streams
}
