package fakeclock

import (
	"fmt"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// The conformance table runs each script against fakeclock and against the
// real time package inside a synctest bubble, and requires identical
// observations. It pins fakeclock's Stop/Reset/channel semantics to the real
// ones rather than to our reading of the documentation.
//
// Rows never give two timers the same deadline: real time.AfterFunc runs
// each callback in its own goroutine, so Go does not order same-deadline
// callbacks, while fakeclock does (by arming order). Those cases are covered
// by the fakeclock-only tests (TestFiringOrder and friends).

// step is one operation of a script.
type step struct {
	op   string // func, timer, ticker, stop, reset, recv, sleep
	name string
	d    time.Duration
	then *step // func only: a step run inside the callback
}

func fn(name string, d time.Duration) step     { return step{op: "func", name: name, d: d} }
func timer(name string, d time.Duration) step  { return step{op: "timer", name: name, d: d} }
func ticker(name string, d time.Duration) step { return step{op: "ticker", name: name, d: d} }
func stop(name string) step                    { return step{op: "stop", name: name} }
func reset(name string, d time.Duration) step  { return step{op: "reset", name: name, d: d} }
func recvOp(name string) step                  { return step{op: "recv", name: name} }
func sleep(d time.Duration) step               { return step{op: "sleep", d: d} }
func chain(parent step, child step) step       { parent.then = &child; return parent }
func secs(n float64) time.Duration             { return time.Duration(n * float64(time.Second)) }
func (s step) String() string                  { return fmt.Sprintf("%s %s %s", s.op, s.name, s.d) }

// stopper is what both *time.Timer and fakeclock's clock.Timer offer.
type stopper interface {
	Stop() bool
	Reset(time.Duration) bool
}

// backend is the clock under test.
type backend interface {
	afterFunc(d time.Duration, f func()) stopper
	newTimer(d time.Duration) (stopper, <-chan time.Time)
	newTicker(d time.Duration) (func(), <-chan time.Time)
	sleep(d time.Duration)
	now() time.Time
}

type fakeBackend struct{ c *Clock }

func (b *fakeBackend) afterFunc(d time.Duration, f func()) stopper { return b.c.AfterFunc(d, f) }

func (b *fakeBackend) newTimer(d time.Duration) (stopper, <-chan time.Time) {
	t := b.c.NewTimer(d)
	return t, t.C()
}
func (b *fakeBackend) newTicker(d time.Duration) (func(), <-chan time.Time) {
	k := b.c.NewTicker(d)
	return k.Stop, k.C()
}
func (b *fakeBackend) sleep(d time.Duration) { b.c.Advance(d) }
func (b *fakeBackend) now() time.Time        { return b.c.Now() }

// realBackend must be used inside a synctest bubble.
type realBackend struct{}

func (realBackend) afterFunc(d time.Duration, f func()) stopper { return time.AfterFunc(d, f) }
func (realBackend) newTimer(d time.Duration) (stopper, <-chan time.Time) {
	t := time.NewTimer(d)
	return t, t.C
}
func (realBackend) newTicker(d time.Duration) (func(), <-chan time.Time) {
	k := time.NewTicker(d)
	return k.Stop, k.C
}

// sleep lets time pass, then waits for the AfterFunc goroutines that fired
// meanwhile to finish, so their observations precede the next step's.
func (realBackend) sleep(d time.Duration) { time.Sleep(d); synctest.Wait() }
func (realBackend) now() time.Time        { return time.Now() }

// runner executes a script and records observations. Real callbacks run on
// their own goroutines, hence the mutex.
type runner struct {
	b       backend
	start   time.Time
	mu      sync.Mutex
	obs     []string
	timers  map[string]stopper
	chans   map[string]<-chan time.Time
	tickers map[string]func()
}

func runScript(b backend, script []step) []string {
	r := &runner{b: b, start: b.now(), timers: map[string]stopper{},
		chans: map[string]<-chan time.Time{}, tickers: map[string]func(){}}
	for _, s := range script {
		r.do(s)
	}
	// Leave nothing armed, so the synctest bubble ends cleanly.
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, t := range r.timers {
		t.Stop()
	}
	for _, stopTicker := range r.tickers {
		stopTicker()
	}
	return r.obs
}

func (r *runner) record(format string, args ...any) {
	r.mu.Lock()
	r.obs = append(r.obs, fmt.Sprintf(format, args...))
	r.mu.Unlock()
}

func (r *runner) timer(name string) stopper {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.timers[name]
}

func (r *runner) do(s step) {
	switch s.op {
	case "func":
		t := r.b.afterFunc(s.d, func() {
			r.record("%s fired at %s", s.name, r.b.now().Sub(r.start))
			if s.then != nil {
				r.do(*s.then)
			}
		})
		r.mu.Lock()
		r.timers[s.name] = t
		r.mu.Unlock()
	case "timer":
		t, ch := r.b.newTimer(s.d)
		r.mu.Lock()
		r.timers[s.name], r.chans[s.name] = t, ch
		r.mu.Unlock()
	case "ticker":
		stopTicker, ch := r.b.newTicker(s.d)
		r.mu.Lock()
		r.tickers[s.name], r.chans[s.name] = stopTicker, ch
		r.mu.Unlock()
	case "stop":
		r.record("stop %s = %v", s.name, r.timer(s.name).Stop())
	case "reset":
		r.record("reset %s = %v", s.name, r.timer(s.name).Reset(s.d))
	case "recv":
		r.mu.Lock()
		ch := r.chans[s.name]
		r.mu.Unlock()
		select {
		case v := <-ch:
			r.record("recv %s = %s at %s", s.name, v.Sub(r.start), r.b.now().Sub(r.start))
		default:
			r.record("recv %s = empty", s.name)
		}
	case "sleep":
		r.b.sleep(s.d)
	default:
		panic("conformance: unknown step " + s.String())
	}
}

var conformance = []struct {
	name   string
	script []step
}{
	{"distinct deadlines fire earliest first",
		[]step{fn("A", secs(3)), fn("B", secs(1)), fn("C", secs(2)), sleep(secs(5))}},
	{"stop before firing",
		[]step{fn("A", secs(3)), fn("B", secs(1)), stop("B"), sleep(secs(5)), stop("A"), stop("B")}},
	{"reset active timer earlier",
		[]step{fn("A", secs(3)), reset("A", secs(1)), sleep(secs(2)), reset("A", secs(1)), sleep(secs(2))}},
	{"reset active timer later",
		[]step{fn("A", secs(1)), sleep(secs(0.5)), reset("A", secs(2)), sleep(secs(3))}},
	{"reset stopped timer",
		[]step{fn("A", secs(1)), stop("A"), reset("A", secs(2)), sleep(secs(3)), stop("A")}},
	{"reset fired timer re-arms",
		[]step{fn("A", secs(1)), sleep(secs(2)), reset("A", secs(1)), sleep(secs(2)), reset("A", secs(1)), stop("A")}},
	{"zero duration fires at the next sleep",
		[]step{fn("A", 0), sleep(secs(1)), stop("A")}},
	{"negative duration fires at the next sleep",
		[]step{fn("A", -secs(1)), sleep(secs(1))}},
	{"deadline equal to the end of a sleep",
		[]step{fn("A", secs(2)), sleep(secs(2)), stop("A"), fn("B", secs(1)), sleep(secs(1))}},
	{"callback arms a timer",
		[]step{chain(fn("A", secs(1)), fn("B", secs(1))), fn("C", secs(1.5)), sleep(secs(3))}},
	{"callback arms a timer beyond the sleep",
		[]step{chain(fn("A", secs(1)), fn("B", secs(5))), sleep(secs(2)), stop("B"), sleep(secs(10))}},
	{"callback stops a later timer",
		[]step{chain(fn("A", secs(1)), stop("B")), fn("B", secs(2)), sleep(secs(3))}},
	{"callback resets a later timer",
		[]step{chain(fn("A", secs(1)), reset("B", secs(3))), fn("B", secs(2)), sleep(secs(5))}},
	{"channel timer delivers its deadline",
		[]step{timer("T", secs(2)), sleep(secs(1)), recvOp("T"), sleep(secs(2)), recvOp("T"), recvOp("T")}},
	{"stop of fired unreceived channel timer drains",
		[]step{timer("T", secs(1)), sleep(secs(2)), stop("T"), recvOp("T"), stop("T")}},
	{"stop of received channel timer",
		[]step{timer("T", secs(1)), sleep(secs(2)), recvOp("T"), stop("T")}},
	{"reset of fired unreceived channel timer drains",
		[]step{timer("T", secs(1)), sleep(secs(2)), reset("T", secs(1)), recvOp("T"), sleep(secs(2)), recvOp("T")}},
	{"ticker drops ticks while full",
		[]step{ticker("K", secs(1)), sleep(secs(3.5)), recvOp("K"), recvOp("K"), sleep(secs(1)), recvOp("K")}},
	{"funcs and channel timers interleave",
		[]step{timer("T", secs(2)), fn("A", secs(1)), fn("B", secs(3)), sleep(secs(2.5)), recvOp("T"), stop("B"), sleep(secs(1))}},
}

func TestConformance(t *testing.T) {
	for _, tt := range conformance {
		t.Run(tt.name, func(t *testing.T) {
			fake := runScript(&fakeBackend{c: New()}, tt.script)
			var real []string
			synctest.Test(t, func(t *testing.T) {
				real = runScript(realBackend{}, tt.script)
			})
			if !slices.Equal(fake, real) {
				t.Errorf("got fakeclock %q, want (real time) %q", fake, real)
			}
			if len(real) == 0 {
				t.Errorf("got no observations, want a script that observes something")
			}
		})
	}
}
