package workers

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"k8s.io/utils/clock"

	"github.com/podsim/podsim/sim"
)

// The behaviour tests are runtime-agnostic: each runs in an env, and
// forEachEnv runs it in every env it is meant for:
//
//   - sim/pinned: the simulated runtime under the cooperative schedule
//     (sim.NewReplay(nil): every choice 0, a goroutine runs until it
//     blocks), the pinned interleaving of the narrated scripts;
//   - sim/seed=N: the simulated runtime under a seeded random walk, for tests
//     whose assertions hold under every interleaving;
//   - real/synctest: the real runtime inside a testing/synctest bubble,
//     which under go test -race is the smoke test for data races that a
//     cooperative scheduler hides.
//
// A test drives its env command by command: Do starts the command as a
// goroutine of the env and returns once nothing can run without time
// passing. Between commands nothing runs, so the test goroutine may read
// plain fields, build pods and create primitives (NewEvent is not a
// scheduling point); but every operation that is one — locking podLock (any
// PodWorkers or Queue method), Fire, Fired, Wait, Notify — must run inside
// Do, because a sim primitive used from the test goroutine panics.

// env is one runtime the pod workers can run on, driven step by step.
type env interface {
	// Runtime is the workers.Runtime of the env.
	Runtime() Runtime
	// Go starts f as a goroutine of the env: at once on the real runtime,
	// at the next Wait on the simulated one. name is made unique.
	Go(name string, f func())
	// Wait returns once every goroutine of the env is blocked or has
	// exited, without letting time pass (synctest.Wait, RunUntilIdle).
	Wait()
	// Do is Go then Wait.
	Do(name string, f func())
	// Advance lets d of fake or virtual time pass, running whatever
	// becomes runnable, then Waits.
	Advance(d time.Duration)
	// Failed reports that the env itself failed (a simulation error was
	// reported); nothing may be run in it any more.
	Failed() bool
}

// schedules says under which simulated schedules a test runs; every test
// also runs on the real runtime.
type schedules int

const (
	// pinned: the cooperative schedule only. For tests with a single
	// goroutine (nothing to vary) and for assertions that depend on the
	// cooperative order; each such test says which.
	pinned schedules = iota
	// seeded: the cooperative schedule and numSeeds seeded random ones, for
	// assertions that hold under every interleaving.
	seeded
)

// numSeeds is how many seeded schedules a seeded test runs under.
const numSeeds = 20

// forEachEnv runs fn as subtests sim/pinned, sim/seed=1..numSeeds (when
// seeded) and real/synctest.
func forEachEnv(t *testing.T, sched schedules, fn func(t *testing.T, e env)) {
	t.Helper()
	t.Run("sim/pinned", func(t *testing.T) { runSim(t, sim.NewReplay(nil), fn) })
	if sched == seeded {
		for seed := uint64(1); seed <= numSeeds; seed++ {
			t.Run(fmt.Sprintf("sim/seed=%d", seed), func(t *testing.T) { runSim(t, sim.NewPCG(seed), fn) })
		}
	}
	t.Run("real/synctest", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			fn(t, &realEnv{rt: NewRealRuntime(clock.RealClock{}, 1)})
		})
	})
}

// realEnv is the real runtime inside the current synctest bubble; the
// bubble's end checks that no goroutine is left.
type realEnv struct{ rt *RealRuntime }

func (e *realEnv) Runtime() Runtime         { return e.rt }
func (e *realEnv) Go(_ string, f func())    { go f() }
func (e *realEnv) Wait()                    { synctest.Wait() }
func (e *realEnv) Do(name string, f func()) { e.Go(name, f); e.Wait() }
func (e *realEnv) Failed() bool             { return false }

func (e *realEnv) Advance(d time.Duration) {
	time.Sleep(d)
	synctest.Wait()
}

// runSim runs fn against a fresh scheduler over src, then checks that the
// run ends cleanly (as a synctest bubble does: every test goroutine exited,
// only daemons left waiting), and Closes the scheduler so that no goroutine
// outlives the test.
func runSim(t *testing.T, src sim.Source, fn func(t *testing.T, e env)) {
	e := &simEnv{t: t, s: sim.New(sim.Options{Source: src})}
	defer e.s.Close()
	fn(t, e)
	if !e.failed {
		e.check(e.s.Run())
	}
}

// simEnv is the simulated runtime, driven from the test goroutine.
type simEnv struct {
	t      *testing.T
	s      *sim.Scheduler
	n      int // goroutines started by the test, for unique names
	failed bool
}

func (e *simEnv) Runtime() Runtime { return simRuntime{e.s} }

func (e *simEnv) Go(name string, f func()) {
	e.n++
	e.s.Go(fmt.Sprintf("%s/%d", name, e.n), f)
}

func (e *simEnv) Failed() bool { return e.failed }

func (e *simEnv) Wait() {
	e.t.Helper()
	e.check(e.s.RunUntilIdle())
}

func (e *simEnv) Do(name string, f func()) {
	e.t.Helper()
	e.Go(name, f)
	e.Wait()
}

func (e *simEnv) Advance(d time.Duration) {
	e.t.Helper()
	e.check(e.s.RunFor(d))
}

// check fails the test with the simulation's error (deadlock, limit, panic,
// hot loop), its trace hash and the command that reproduces it.
func (e *simEnv) check(err error) {
	if err == nil {
		return
	}
	e.failed = true
	e.t.Helper()
	e.t.Fatal(simFailure(e.t.Name(), e.s, err))
}

// simFailure describes a failed simulation. After a HotLoopError the stuck
// goroutine still runs, so the trace is not read.
func simFailure(test string, s *sim.Scheduler, err error) string {
	var b strings.Builder
	fmt.Fprintf(&b, "simulation failed: %v\n", err)
	if p := (*sim.PanicError)(nil); errors.As(err, &p) {
		fmt.Fprintf(&b, "%s\n", p.Stack)
	}
	if hot := (*sim.HotLoopError)(nil); !errors.As(err, &hot) {
		trace := strings.Split(strings.TrimSuffix(s.Trace(), "\n"), "\n")
		fmt.Fprintf(&b, "trace sha256 %s (%d steps); its last lines:\n  %s\n",
			s.TraceSHA256(), s.Steps(), strings.Join(trace[max(0, len(trace)-30):], "\n  "))
	}
	fmt.Fprintf(&b, "reproduce: go test ./workers -count=1 -run '%s'", runPattern(test))
	return b.String()
}

// runPattern is the -run pattern matching exactly the (sub)test called name.
func runPattern(name string) string {
	parts := strings.Split(name, "/")
	for i, p := range parts {
		parts[i] = "^" + regexp.QuoteMeta(p) + "$"
	}
	return strings.Join(parts, "/")
}

// simRuntime adapts a sim.Scheduler to Runtime. It duplicates the few lines
// of world/simrt on purpose: simrt imports workers, so this package's
// own tests importing simrt would be an import cycle; they may import sim,
// which imports nothing of ours. As in simrt, the goroutines the workers
// start are daemons (a worker waiting for its next update is idle, not
// deadlocked); the invariant hook lives in testRuntime, over either runtime.
type simRuntime struct{ s *sim.Scheduler }

func (r simRuntime) Go(name string, f func())         { r.s.GoDaemon(name, f) }
func (r simRuntime) NewMutex(name string) sync.Locker { return r.s.NewMutex(name) }
func (r simRuntime) NewSignal(name string) Signal     { return r.s.NewSignal(name) }
func (r simRuntime) NewEvent(name string) Event       { return r.s.NewEvent(name) }
func (r simRuntime) Now() time.Time                   { return r.s.Now() }
func (r simRuntime) Intn(n int) int                   { return r.s.Intn(n) }

// TestSimEnvReplays: a simulated run is a function of its Source, so a
// failing seed reproduces byte for byte; different seeds interleave
// differently.
func TestSimEnvReplays(t *testing.T) {
	run := func(src sim.Source) (hash string) {
		runSim(t, src, func(t *testing.T, e env) {
			h := newHarness(t, e)
			for _, uid := range []string{"a", "b", "c"} {
				e.Go("client", func() {
					h.w.UpdatePod(UpdatePodOptions{UpdateType: SyncPodCreate, Pod: newPod(uid, "pod-"+uid)})
					h.w.UpdatePod(UpdatePodOptions{UpdateType: SyncPodKill, Pod: newPod(uid, "pod-"+uid)})
				})
			}
			e.Wait()
			h.stop()
			hash = e.(*simEnv).s.TraceSHA256()
		})
		return hash
	}
	hashes := map[string]bool{}
	for seed := uint64(1); seed <= 5; seed++ {
		first, again := run(sim.NewPCG(seed)), run(sim.NewPCG(seed))
		if first != again {
			t.Errorf("seed %d: got trace hashes %s and %s, want equal", seed, first, again)
		}
		hashes[first] = true
	}
	if first, again := run(sim.NewReplay(nil)), run(sim.NewReplay(nil)); first != again {
		t.Errorf("pinned: got trace hashes %s and %s, want equal", first, again)
	}
	if len(hashes) < 2 {
		t.Errorf("got %d distinct traces from 5 seeds, want several", len(hashes))
	}
}

// TestSimFailureReport: a failed simulation is reported with its error, the
// panicking goroutine's stack, the trace hash and the command that reruns
// exactly that subtest.
func TestSimFailureReport(t *testing.T) {
	s := sim.New(sim.Options{Source: sim.NewReplay(nil)})
	defer s.Close()
	s.Go("client/1", func() { panic("boom") })
	err := s.RunUntilIdle()
	got := simFailure("TestX/case_one/sim/seed=7", s, err)
	for _, want := range []string{
		"simulation failed: sim: goroutine client/1 panicked", "boom", "TestSimFailureReport",
		"trace sha256 " + s.TraceSHA256(), "client/1 panic",
		"reproduce: go test ./workers -count=1 -run '^TestX$/^case_one$/^sim$/^seed=7$'",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("got report\n%s\nwant it to contain %q", got, want)
		}
	}
	hot := simFailure("TestX", s, &sim.HotLoopError{Goroutine: "worker/a"})
	if strings.Contains(hot, "trace sha256") || !strings.Contains(hot, "-run '^TestX$'") {
		t.Errorf("hot loop: got report\n%s\nwant no trace, a reproduce command", hot)
	}
}
