package fakeclock

import (
	"fmt"
	"math"
	"sync"
	"time"

	"k8s.io/utils/clock"
)

// The sim scheduler and the workers' real runtime both speak
// k8s.io/utils/clock, so the fake must be usable wherever a real clock is.
var (
	_ clock.PassiveClock                  = (*Clock)(nil)
	_ clock.WithDelayedExecution          = (*Clock)(nil)
	_ clock.WithTickerAndDelayedExecution = (*Clock)(nil)
	_ clock.Timer                         = (*Timer)(nil)
	_ clock.Ticker                        = (*Ticker)(nil)
)

// Epoch is the time at which every new Clock starts. A fixed instant (rather
// than time.Now) keeps traces byte-for-byte reproducible; it is a function
// rather than a variable so that no package state can be mutated.
func Epoch() time.Time {
	return time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
}

// maxOffset is the latest representable instant, as an offset from Epoch.
// Deadlines beyond it saturate to it ("never", in practice).
const maxOffset = time.Duration(math.MaxInt64)

// Clock is a passive virtual clock: it moves only when AdvanceTo, Advance or
// Sleep is called. See the package documentation for the firing order.
// The zero value is not usable; call New.
type Clock struct {
	mu     sync.Mutex
	base   time.Time     // Epoch(), kept so Now need not rebuild it
	now    time.Duration // current time as an offset from base
	seq    uint64        // last sequence number handed out
	timers []*Timer      // min-heap by (when, seq); see heap.go
}

// New returns a clock reading Epoch() with no pending timers.
func New() *Clock {
	return NewIn(&Clock{}, make([]*Timer, 0, 16)) // room for a run's timers: no growth from nothing
}

// NewIn makes *c, a zero Clock inside a structure of the caller's, the
// clock New returns, its timer heap beginning in room's array; it returns
// c.
func NewIn(c *Clock, room []*Timer) *Clock {
	c.base, c.timers = Epoch(), room[:0]
	return c
}

// Now returns the current virtual time. Inside a timer callback it is that
// timer's deadline.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	now := c.now
	c.mu.Unlock()
	return c.base.Add(now)
}

// Since returns Now().Sub(t).
func (c *Clock) Since(t time.Time) time.Duration {
	return c.Now().Sub(t)
}

// Next returns the deadline of the earliest pending timer, and false if no
// timer is pending. The sim scheduler uses it to decide where to jump when
// nothing is runnable, and to detect deadlock (nothing runnable, no timer).
func (c *Clock) Next() (time.Time, bool) {
	d, ok := c.NextOffset()
	if !ok {
		return time.Time{}, false
	}
	return c.base.Add(d), true // base is set once, at New
}

// NextOffset is Next as an offset from Epoch (Next().Sub(Epoch())): a
// driver that keeps its time as a Duration since Epoch, as the sim
// scheduler does, takes no detour through time.Time.
func (c *Clock) NextOffset() (time.Duration, bool) {
	c.mu.Lock()
	if len(c.timers) == 0 {
		c.mu.Unlock()
		return 0, false
	}
	d := c.timers[0].when
	c.mu.Unlock()
	return d, true
}

// AdvanceToOffset is AdvanceTo(Epoch().Add(d)) for an offset d from
// Epoch: every offset is in range, so only moving into the past panics.
func (c *Clock) AdvanceToOffset(d time.Duration) {
	c.mu.Lock()
	if d < c.now {
		c.mu.Unlock()
		panic(fmt.Sprintf("fakeclock: AdvanceToOffset: %s is before now (%s after the epoch)", d, c.now))
	}
	c.runLocked(d)
}

// AdvanceTo moves the clock to t, firing every timer due at or before t in
// (deadline, sequence) order, including timers armed by those callbacks.
// Callbacks run on the calling goroutine, without the clock's lock held.
// When it returns, Now() == t (unless a callback advanced the clock further).
// Moving into the past is a programmer error and panics.
func (c *Clock) AdvanceTo(t time.Time) {
	c.mu.Lock()
	if now := c.base.Add(c.now); t.Before(now) {
		c.mu.Unlock()
		panic(fmt.Sprintf("fakeclock: AdvanceTo: %s is before now %s",
			t.Format(time.RFC3339Nano), now.Format(time.RFC3339Nano)))
	}
	target := t.Sub(c.base) // saturates, hence the round-trip check
	if !c.base.Add(target).Equal(t) {
		c.mu.Unlock()
		panic(fmt.Sprintf("fakeclock: AdvanceTo: %s is out of range (more than %s after %s)",
			t.Format(time.RFC3339Nano), maxOffset, c.base.Format(time.RFC3339Nano)))
	}
	c.runLocked(target)
}

// Advance moves the clock forward by d, as AdvanceTo(Now().Add(d)).
// Advance(0) fires the timers that are already due. Negative d panics.
func (c *Clock) Advance(d time.Duration) {
	if d < 0 {
		panic(fmt.Sprintf("fakeclock: Advance: negative duration %s", d))
	}
	c.mu.Lock()
	c.runLocked(addSat(c.now, d))
}

// Sleep advances the clock by d (d <= 0 is Advance(0)). A passive clock has
// nobody else to move time, so Sleep cannot block waiting for it; like
// k8s.io/utils/clock/testing.FakeClock, it moves time itself. Code under
// simulation that must wait should park on a sim primitive instead.
func (c *Clock) Sleep(d time.Duration) {
	c.Advance(max(d, 0))
}

// runLocked fires due timers up to target and leaves the clock at target.
// It is entered with c.mu held and returns with it released; the lock is
// dropped around each callback so that callbacks may use the clock.
func (c *Clock) runLocked(target time.Duration) {
	for len(c.timers) > 0 && c.timers[0].when <= target {
		t := c.timers[0]
		c.removeLocked(0)
		// Every pending deadline is >= c.now (arming clamps to now and time
		// only moves to the heap minimum or below it), so this never
		// moves time backwards.
		c.now = t.when
		h := t.fireLocked()
		if h == nil {
			continue
		}
		c.mu.Unlock()
		h.Fire()
		c.mu.Lock()
	}
	// A re-entrant or concurrent driver may already have gone past target.
	c.now = max(c.now, target)
	c.mu.Unlock()
}

// AfterFunc arms a timer that calls f, on the goroutine advancing the clock,
// once d has elapsed (d <= 0: at the next advance). The result is always a
// *Timer; Schedule returns it with its concrete type.
func (c *Clock) AfterFunc(d time.Duration, f func()) clock.Timer {
	return c.Schedule(d, f)
}

// Schedule is AfterFunc returning the concrete *Timer, for callers (like the
// sim package) that may not import k8s.io/utils/clock and for the hot path,
// where it is the only allocation.
func (c *Clock) Schedule(d time.Duration, f func()) *Timer {
	if f == nil {
		panic("fakeclock: AfterFunc: nil func")
	}
	t := &Timer{}
	c.armNew(t, d, funcFirer(f))
	return t
}

// Firer is what a timer calls as it fires: for ScheduleFirer, a callback
// with its state in a value the caller holds, not a closure.
type Firer interface{ Fire() }

// funcFirer is AfterFunc's and Schedule's func as a Firer (a func is one
// pointer: the interface holds it without an allocation).
type funcFirer func()

// Fire implements Firer.
func (f funcFirer) Fire() { f() }

// ScheduleFirer is Schedule on a timer the caller holds (a zero Timer
// inside a structure of its own), calling h.Fire instead of a function:
// neither the timer nor a closure is an allocation of its own. t becomes
// the timer Schedule would have returned; a timer already made by a clock
// panics.
func (c *Clock) ScheduleFirer(t *Timer, d time.Duration, h Firer) {
	if h == nil {
		panic("fakeclock: ScheduleFirer: nil Firer")
	}
	if t.clock != nil {
		panic("fakeclock: ScheduleFirer: the timer was made already")
	}
	c.armNew(t, d, h)
}

// armNew makes t a timer of c calling h and arms it d from now.
func (c *Clock) armNew(t *Timer, d time.Duration, h Firer) {
	*t = Timer{clock: c, fire: h, index: -1}
	c.mu.Lock()
	c.armLocked(t, d)
	c.mu.Unlock()
}

// NewTimer arms a timer whose channel C() receives its deadline once d has
// elapsed. The result is a *Timer.
func (c *Clock) NewTimer(d time.Duration) clock.Timer {
	t := &Timer{clock: c, ch: make(chan time.Time, 1), index: -1}
	c.mu.Lock()
	c.armLocked(t, d)
	c.mu.Unlock()
	return t
}

// After returns NewTimer(d).C().
func (c *Clock) After(d time.Duration) <-chan time.Time {
	return c.NewTimer(d).C()
}

// NewTicker returns a ticker whose channel receives the tick time every d,
// dropping ticks while its channel is full. d <= 0 panics, as in time.
// The result is a *Ticker.
func (c *Clock) NewTicker(d time.Duration) clock.Ticker {
	if d <= 0 {
		panic(fmt.Sprintf("fakeclock: NewTicker: non-positive interval %s", d))
	}
	k := &Ticker{t: Timer{clock: c, ch: make(chan time.Time, 1), period: d, index: -1}}
	c.mu.Lock()
	c.armLocked(&k.t, d)
	c.mu.Unlock()
	return k
}

// Tick returns NewTicker(d).C(), or nil for d <= 0 as time.Tick does.
func (c *Clock) Tick(d time.Duration) <-chan time.Time {
	if d <= 0 {
		return nil
	}
	return c.NewTicker(d).C()
}

// armLocked gives t the deadline now+d (clamped to now and to maxOffset) and
// the next sequence number, and puts it in the heap (or moves it there).
func (c *Clock) armLocked(t *Timer, d time.Duration) {
	c.armAtLocked(t, addSat(c.now, max(d, 0)))
}

func (c *Clock) armAtLocked(t *Timer, when time.Duration) {
	c.seq++
	t.when, t.seq = when, c.seq
	if t.index >= 0 {
		c.fixLocked(t.index)
		return
	}
	c.pushLocked(t)
}

// addSat returns a+d for d >= 0, saturating at maxOffset instead of
// wrapping, so that AfterFunc(math.MaxInt64) means "never" rather than
// "in the past".
func addSat(a, d time.Duration) time.Duration {
	if d > maxOffset-a {
		return maxOffset
	}
	return a + d
}
