package sim

import (
	"fmt"
	"sync/atomic"
	"time"

	"github.com/podsim/podsim/fakeclock"
)

// Defaults for the bounds of Options; every run is bounded.
const (
	DefaultMaxSteps = 1_000_000
	DefaultMaxTime  = 24 * time.Hour
	DefaultHotLoop  = 5 * time.Second
	// MaxGoroutines bounds the goroutines one run may spawn.
	MaxGoroutines = 1 << 15
)

const batonIDBits = 16

// Options configure a Scheduler. The zero value is valid: a random walk
// over a PCG seeded with 0 and the default bounds.
type Options struct {
	// Source supplies every choice; nil means NewPCG(0).
	Source Source
	// Strategy picks the next goroutine; nil means RandomWalk{}.
	Strategy Strategy
	// MaxSteps bounds the scheduling points of a run (0: DefaultMaxSteps).
	MaxSteps int64
	// MaxTime bounds virtual time since the epoch (0: DefaultMaxTime).
	MaxTime time.Duration
	// HotLoop is how long, in real time, one goroutine may hold the baton
	// without reaching a scheduling point before the run is abandoned with a
	// HotLoopError (0: DefaultHotLoop; negative: never). Real time only
	// decides whether to report a stuck run, never what a run does.
	HotLoop time.Duration
}

type gstate uint8

const (
	gRunnable gstate = iota
	gParked
	gExited
)

// goroutine is one simulated goroutine: a runtime coroutine that runs only
// while it holds the baton.
type goroutine struct {
	id       int32
	name     string
	resume   func() (struct{}, bool) // run until the next yield (driver only)
	yield    func(struct{}) bool     // back to the driver (g itself only)
	state    gstate
	daemon   bool
	returned bool  // f returned: an exit without recover() is a Goexit
	chained  bool  // resumed and not yet yielded back (awaitBaton)
	prio     int64 // PCT priority

	// What a parked goroutine waits on, for deadlock reports and wake-ups.
	waitOp  op
	waitObj int32
	mu      *Mutex           // the mutex waited for, if any
	timer   *fakeclock.Timer // alarm while it is armed, else nil
	result  bool             // outcome of a Signal.Wait or Event.WaitFor
	// alarm is the goroutine's one timer, made at its first Sleep or
	// timed WaitFor (until then its s is nil) and re-armed for each later
	// one (armAlarm), so a sleep allocates nothing; timeoutOf is the event
	// whose WaitFor it times out (nil: a Sleep).
	alarm     alarm
	timeoutOf *Event
}

// Scheduler runs simulated goroutines one at a time. Create one per run with
// New (or Renew a closed one), add goroutines with Go, call Run once, then
// Close. Its methods and the primitives it makes may be called only by the
// simulated goroutine that holds the baton (and, before Run, by the
// goroutine that created it).
type Scheduler struct {
	opts   Options
	clock  *fakeclock.Clock
	epoch  time.Time
	src    Source
	picker picker
	walk   bool // picker is a random walk's: point draws its choice itself

	all      []*goroutine // spawn order
	runnable []*goroutine // spawn order
	cur      *goroutine
	live     int
	steps    int64
	handoffs uint64
	elapsed  time.Duration // virtual time since epoch, mirrored from clock
	now      time.Time     // epoch + elapsed (setElapsed): Now is read far more often than time moves

	objects  []object
	trace    traceLog
	untraced bool // Untraced: record no more trace
	mute     bool // untraced or unwinding: rec and recAs record nothing

	// running is true while a Run segment is in progress; horizon is the
	// virtual time the segment may advance to (-1: unbounded, for Run).
	running bool
	horizon time.Duration
	// over is true once the run has ended for good: halted, or err set.
	over, halted bool
	err          error
	hotErr       error
	// ended is set when the segment is over, with its result.
	ended  bool
	result error

	// Read by the watcher while simulated goroutines run (watchdog.go): the
	// number of baton handoffs (high bits) and the goroutine that got the
	// last one (low batonIDBits), in one pointer-free word; hotBit once the
	// watcher has claimed the segment. hot is set once it has.
	baton atomic.Uint64
	hot   atomic.Bool
	// The watched segment's driver: its coroutine's yield, which the
	// rescuer calls; rescued is the claimed baton word, set by the rescuer.
	driverYield func(struct{}) bool
	rescued     uint64
	// The watcher's own (under watcher.mu): the baton word it last saw and
	// since when (zero: not seen yet).
	watchLast  uint64
	watchSince time.Time

	unwinding bool
	zombies   []*goroutine // in runtime.Goexit, finished by Close

	// room is where all, runnable, objects and the clock's timer heap
	// begin, and the clock itself: room for a kubelet run's goroutines,
	// objects and timers in the scheduler's allocation (no growth from
	// nothing: 1, 2, 4 …, one allocation each). So are a random walk's
	// picker and the first goroutines' slab.
	room struct {
		all, runnable [16]*goroutine
		objects       [32]object
		clock         fakeclock.Clock
		timers        [16]*fakeclock.Timer
		walk          walk
		goroutines    [8]goroutine
	}
	// gslab is where spawn takes its goroutines from: a run's goroutines
	// in a few allocations, not one each (newGoroutine); the first in room.
	gslab []goroutine

	carriers *carrierList // where Go takes a carrier and exits leave it
	freed    *carrier     // the carrier of a goroutine that has just exited
}

// New returns a Scheduler with a fresh fake clock at fakeclock.Epoch.
func New(opts Options) *Scheduler { return new(Scheduler).init(opts) }

// init is New's Scheduler in s, a zero Scheduler.
func (s *Scheduler) init(opts Options) *Scheduler {
	if opts.Source == nil {
		opts.Source = NewPCG(0)
	}
	if opts.Strategy == nil {
		opts.Strategy = RandomWalk{}
	}
	if opts.MaxSteps == 0 {
		opts.MaxSteps = DefaultMaxSteps
	}
	if opts.MaxTime == 0 {
		opts.MaxTime = DefaultMaxTime
	}
	if opts.HotLoop == 0 {
		opts.HotLoop = DefaultHotLoop
	}
	s.opts, s.src, s.carriers = opts, opts.Source, &idleCarriers
	if _, ok := opts.Strategy.(RandomWalk); ok {
		s.room.walk = walk{src: opts.Source} // RandomWalk.start's, in s's allocation
		s.picker = &s.room.walk
	} else {
		s.picker = opts.Strategy.start(opts.Source)
	}
	_, s.walk = s.picker.(*walk)
	s.all, s.runnable, s.objects = s.room.all[:0], s.room.runnable[:0], s.room.objects[:0]
	s.gslab = s.room.goroutines[:0]
	s.clock = fakeclock.NewIn(&s.room.clock, s.room.timers[:0]) // fakeclock.New's, in s's allocation
	s.epoch = s.clock.Now()
	s.now = s.epoch
	return s
}

// Go starts f as a simulated goroutine called name. Names should be unique
// and stable ("worker/<uid>", "client/3"): they are how traces and errors
// refer to goroutines. From inside the simulation Go is a scheduling point.
func (s *Scheduler) Go(name string, f func()) { s.spawn(name, f, false) }

// GoDaemon is Go for a goroutine that may legitimately wait forever on a
// Signal, an Event or a timer (a pod worker waiting for updates): when
// nothing else can run, a daemon parked that way is not a deadlock. A daemon
// parked on a Mutex still is.
func (s *Scheduler) GoDaemon(name string, f func()) { s.spawn(name, f, true) }

func (s *Scheduler) spawn(name string, f func(), daemon bool) {
	if s.unwinding {
		return
	}
	if s.running {
		s.point()
	}
	if len(s.all) >= MaxGoroutines {
		panic(fmt.Sprintf("sim: more than %d goroutines in one run", MaxGoroutines))
	}
	g := s.newGoroutine()
	*g = goroutine{id: int32(len(s.all)), name: name, daemon: daemon, waitObj: -1}
	s.all = append(s.all, g)
	s.live++
	s.picker.spawned(g)
	s.makeRunnable(g)
	s.rec(opGo, -1, int64(g.id))
	s.carry(g, f)
}

// Run runs the simulation to its end: until every goroutine has exited or
// only daemons remain, parked on signals, events or timers that nothing can
// fire (nil); the run is halted (nil); nothing can run and no timer is
// pending while a non-daemon goroutine is parked or any goroutine waits on
// a Mutex (*DeadlockError); a bound is hit (*LimitError); a simulated
// goroutine panics (*PanicError) or holds the baton too long
// (*HotLoopError). Errors and Halt end the run for good; after a nil
// return, more goroutines may be started and Run (or RunUntilIdle) called
// again.
func (s *Scheduler) Run() error { return s.segment(-1) }

// RunUntilIdle runs until nothing is runnable without advancing the clock,
// and returns nil (or the error that ended the run). Goroutines parked on
// anything are left as they are; nothing is judged a deadlock. It is the
// simulated counterpart of testing/synctest's Wait: a test driving a
// simulation step by step starts a goroutine for each command (Go), calls
// RunUntilIdle, then inspects the state.
func (s *Scheduler) RunUntilIdle() error { return s.segment(s.elapsed) }

// RunFor is RunUntilIdle that may advance the clock by up to d, firing every
// timer due in that span; the clock ends exactly d later.
func (s *Scheduler) RunFor(d time.Duration) error {
	if d < 0 {
		panic(fmt.Sprintf("sim: RunFor(%v): negative duration", d))
	}
	horizon := s.elapsed + d
	if err := s.segment(horizon); err != nil || s.over {
		return err
	}
	if horizon > s.elapsed {
		s.setElapsed(horizon)
		s.recAs(-1, opAdvance, -1, int64(horizon))
		s.clock.AdvanceToOffset(horizon) // every timer up to here has fired
	}
	return nil
}

// Halt ends the run successfully from inside the simulation: Run returns nil
// and every other goroutine stays parked until Close. The calling goroutine
// never returns from Halt.
func (s *Scheduler) Halt() {
	s.point()
	g := s.cur
	s.halted = true
	s.rec(opHalt, -1, 0)
	g.state = gParked
	g.waitOp = opHalt
	s.removeRunnable(g)
	s.suspend(g)
	panic("sim: a halted goroutine was resumed")
}

// End is Halt for a goroutine with nothing left to do: it ends the run
// successfully, as Halt does and with the same trace, but returns, and its
// caller must then return from its goroutine's function without another
// simulation call (one panics, and the run ends with a PanicError). The
// caller's deferred calls run as it returns, not at Close, and Close has
// nothing of it to unwind: unwinding Halt's caller there costs a panic (a
// few thousand instructions, a tenth of a scheduling point's switches).
func (s *Scheduler) End() {
	s.point()
	g := s.cur
	s.halted = true
	s.rec(opHalt, -1, 0)
	s.removeRunnable(g)
	s.finish()
	s.cur = nil // what g calls next panics (point); its exit is not recorded (exited)
}

// Now returns the virtual time.
func (s *Scheduler) Now() time.Time { return s.now }

// setElapsed moves the virtual time to d since the epoch.
func (s *Scheduler) setElapsed(d time.Duration) {
	s.elapsed, s.now = d, s.epoch.Add(d)
}

// Elapsed returns the virtual time since the epoch.
func (s *Scheduler) Elapsed() time.Duration { return s.elapsed }

// Goroutine returns the name of the simulated goroutine holding the baton,
// or "" outside a run. Recorders use it to attribute operations.
func (s *Scheduler) Goroutine() string {
	if !s.running || s.cur == nil {
		return ""
	}
	return s.cur.name
}

// Steps returns the number of scheduling points so far.
func (s *Scheduler) Steps() int64 { return s.steps }

// Intn draws from the run's Source (for jitter and simulated faults), so the
// value is part of the replayable schedule. It is not a scheduling point.
func (s *Scheduler) Intn(n int) int {
	checkN(n)
	v := 0
	if n > 1 {
		v = s.src.Intn(n)
	}
	s.rec(opRand, -1, int64(n)<<32|int64(v))
	return v
}

// Yield is a bare scheduling point.
func (s *Scheduler) Yield() {
	s.point()
	s.rec(opYield, -1, 0)
}

// Sleep parks the caller for d of virtual time; d <= 0 is a Yield.
func (s *Scheduler) Sleep(d time.Duration) {
	s.point()
	s.rec(opSleep, -1, int64(d))
	if d <= 0 {
		return
	}
	s.armAlarm(s.cur, d, nil)
	s.park(opSleep, -1)
}

// armAlarm arms g's alarm to go off d from now: it wakes g from a Sleep
// (timeoutOf nil) or times out its WaitFor on timeoutOf. Re-arming the
// alarm (Reset) takes the next sequence number of the clock and pushes
// the timer on its heap, exactly as a new timer's Schedule does, so the
// firing order, and the trace, are those of a timer per wait.
func (s *Scheduler) armAlarm(g *goroutine, d time.Duration, timeoutOf *Event) {
	g.timeoutOf = timeoutOf
	if g.alarm.s == nil { // not made yet
		g.alarm.s, g.alarm.g = s, g
		s.clock.ScheduleFirer(&g.alarm.Timer, d, &g.alarm)
	} else {
		g.alarm.Reset(d)
	}
	g.timer = &g.alarm.Timer
}

// alarm is a goroutine's alarm timer and what its firing wakes
// (fakeclock.Firer: no closure to allocate).
type alarm struct {
	fakeclock.Timer
	s *Scheduler
	g *goroutine
}

// Fire implements fakeclock.Firer.
func (a *alarm) Fire() { a.s.alarmGoesOff(a.g) }

// alarmGoesOff wakes g at the end of its Sleep, or at the timeout of its
// WaitFor.
func (s *Scheduler) alarmGoesOff(g *goroutine) {
	g.timer = nil
	if e := g.timeoutOf; e != nil {
		g.timeoutOf = nil
		e.removeWaiter(g)
		g.result = false
		s.recAs(-1, opTimeout, e.id, int64(g.id))
	} else {
		s.recAs(-1, opWake, -1, int64(g.id))
	}
	s.makeRunnable(g)
}

// newGoroutine returns a zero goroutine from the scheduler's slab: a new
// slab (room for 8 more at first, up to 32 later) when the last is full. A goroutine is never
// handed out twice: its slab lives as long as any goroutine in it.
func (s *Scheduler) newGoroutine() *goroutine {
	if len(s.gslab) == cap(s.gslab) {
		s.gslab = make([]goroutine, 0, min(8+len(s.all), 32))
	}
	s.gslab = s.gslab[:len(s.gslab)+1]
	return &s.gslab[len(s.gslab)-1]
}
