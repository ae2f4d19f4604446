package sim

import (
	"fmt"
	"testing"
	"time"
)

// renewCase is one run of TestRenewRunsAsFresh: a program under options.
type renewCase struct {
	name string
	opts func() Options
	prog func(*Scheduler)
}

// renewCases are varied runs, some ending in a panic, a deadlock, a step
// or time limit or a Halt, so that each run after them starts from a
// scheduler whose last run ended that way.
func renewCases() []renewCase {
	seeded := func(seed uint64, st Strategy, steps int64, limit time.Duration) func() Options {
		return func() Options { return Options{Source: NewPCG(seed), Strategy: st, MaxSteps: steps, MaxTime: limit} }
	}
	pct := PCT{Depth: 3, Steps: 300}
	return []renewCase{
		{"contention/1", seeded(1, nil, 0, 0), contention},
		{"panic", seeded(2, nil, 0, 0), panicking},
		{"contention/2", seeded(2, pct, 0, 0), contention},
		{"deadlock", seeded(3, nil, 0, 0), deadlocking},
		{"contention/3", seeded(3, nil, 0, 0), contention},
		{"step-limit", seeded(4, pct, 40, 0), contention},
		{"contention/4", seeded(4, pct, 0, 0), contention},
		{"time-limit", seeded(5, nil, 0, 3*time.Millisecond), contention},
		{"halt", seeded(6, nil, 0, 0), halting},
		{"contention/5", seeded(5, nil, 0, 0), contention},
		{"panic/2", seeded(7, pct, 0, 0), panicking},
		{"contention/6", seeded(6, nil, 0, 0), contention},
	}
}

// panicking panics in one goroutine while others are parked and sleeping.
func panicking(s *Scheduler) {
	mu, ev := s.NewMutex("mu"), s.NewEvent("ev")
	s.Go("holder", func() { mu.Lock(); ev.Wait(); mu.Unlock() })
	s.Go("sleeper", func() { s.Sleep(time.Duration(1+s.Intn(9)) * time.Millisecond) })
	s.Go("bad", func() { s.Yield(); s.Sleep(time.Millisecond); panic("boom") })
}

// deadlocking parks two goroutines for good, one on a held mutex.
func deadlocking(s *Scheduler) {
	mu, ev := s.NewMutex("mu"), s.NewEvent("never")
	s.Go("a", func() { mu.Lock(); ev.Wait() })
	s.Go("b", func() { s.Sleep(time.Millisecond); mu.Lock() })
}

// halting halts the run with goroutines parked and a timer pending.
func halting(s *Scheduler) {
	ev := s.NewEvent("ev")
	s.Go("waiter", func() { ev.WaitFor(time.Hour) })
	s.Go("halter", func() { s.Sleep(2 * time.Millisecond); s.Halt() })
}

// runOutcome is everything a run shows: its trace, error, steps and time.
func runOutcome(s *Scheduler, prog func(*Scheduler)) string {
	prog(s)
	err := s.Run()
	out := fmt.Sprintf("err=%v steps=%d elapsed=%v now=%v\n%s", err, s.Steps(), s.Elapsed(), s.Now(), s.Trace())
	s.Close()
	return out
}

// renewedDiffers runs every case on one scheduler renewed from run to run,
// with breakReset applied after each Renew (nil: none), and returns the
// first case whose outcome differs from a fresh scheduler's ("" if none).
func renewedDiffers(t *testing.T, breakReset func(s *Scheduler)) string {
	t.Helper()
	var s *Scheduler
	for round := 0; round < 2; round++ {
		for _, c := range renewCases() {
			fresh := runOutcome(New(c.opts()), c.prog)
			last := s
			s = s.Renew(c.opts())
			if last != nil && s != last {
				t.Fatalf("%s: Renew made a new scheduler after a closed run", c.name)
			}
			if breakReset != nil {
				breakReset(s)
			}
			got := runOutcome(s, c.prog)
			if testing.Verbose() && breakReset == nil && round == 0 {
				t.Logf("%s: %.90s", c.name, got)
			}
			if got != fresh {
				return c.name
			}
			s.Recycle()
		}
	}
	return ""
}

// TestRenewRunsAsFresh: a scheduler renewed after runs that passed,
// panicked, deadlocked, hit a limit or halted runs every later program
// step for step as a new one does (the same trace bytes, error, steps and
// time).
func TestRenewRunsAsFresh(t *testing.T) {
	if c := renewedDiffers(t, nil); c != "" {
		t.Fatalf("%s: a renewed scheduler's run differs from a fresh one's", c)
	}
}

// TestRenewedDiffersSeesABrokenReset: the comparison above catches a
// renewal that leaves one field of the last run behind.
func TestRenewedDiffersSeesABrokenReset(t *testing.T) {
	for name, broken := range map[string]func(*Scheduler){
		"steps":  func(s *Scheduler) { s.steps = 7 },
		"source": func(s *Scheduler) { s.src = NewPCG(99) },
		"clock":  func(s *Scheduler) { s.clock.AdvanceToOffset(time.Millisecond) },
	} {
		if renewedDiffers(t, broken) == "" {
			t.Errorf("a reset that leaves %s behind went unseen", name)
		}
	}
}

// TestRenewOnlyAClosedRun: a scheduler whose run may still be touched (not
// closed, or abandoned to a hot loop) is not renewed: Renew returns a new one.
func TestRenewOnlyAClosedRun(t *testing.T) {
	var none *Scheduler
	if none.Renew(Options{}) == nil {
		t.Fatal("nil.Renew returned nil")
	}
	open := New(Options{})
	open.Go("g", func() { open.Yield() })
	if open.Renew(Options{}) == open {
		t.Fatal("Renew reused a scheduler that Close has not finished")
	}
	open.Close()
	hot := New(Options{})
	hot.Close()
	hot.hot.Store(true) // as after a rescue (watchdog.go): its stuck goroutine still runs
	if hot.Renew(Options{}) == hot {
		t.Fatal("Renew reused a scheduler abandoned to a hot loop")
	}
	closed := New(Options{})
	closed.Close()
	if closed.Renew(Options{}) != closed {
		t.Fatal("Renew did not reuse a closed scheduler")
	}
}
