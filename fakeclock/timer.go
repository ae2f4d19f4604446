package fakeclock

import (
	"fmt"
	"time"
)

// Timer is one pending or idle timer of a Clock: an AfterFunc callback or a
// channel timer. It is the only allocation AfterFunc makes, and it carries
// its own heap index so Stop and Reset remove or move it in O(log n) without
// searching and without leaving tombstones behind for Next to skip.
type Timer struct {
	clock  *Clock
	fire   Firer          // the callback (AfterFunc's func as a funcFirer); nil for channel timers
	ch     chan time.Time // NewTimer/ticker channel; nil for AfterFunc timers
	when   time.Duration  // deadline, as an offset from the clock's epoch
	seq    uint64         // arming order, the tie-break among equal deadlines
	period time.Duration  // > 0 only for tickers: re-arm this far after when
	index  int            // position in the clock's heap; -1 when not armed
}

// C returns the channel that receives the deadline when the timer fires;
// nil for timers made by AfterFunc/Schedule, as with time.AfterFunc.
func (t *Timer) C() <-chan time.Time {
	return t.ch
}

// Stop prevents the timer from firing. It reports true iff the call stopped
// an active timer: false if the timer had already fired or been stopped.
// For a channel timer it also discards a fired but unreceived value, and
// then reports true, as time.Timer does since Go 1.23.
func (t *Timer) Stop() bool {
	c := t.lock("Stop")
	active := t.disarmLocked()
	c.mu.Unlock()
	return active
}

// Reset re-arms the timer to fire at Now()+d (d <= 0: at the next advance),
// whatever its state, with a fresh sequence number: it is ordered after every
// timer already armed for the same deadline. It reports true iff the timer
// had been active, with the same channel rule as Stop.
func (t *Timer) Reset(d time.Duration) bool {
	c := t.lock("Reset")
	drained := t.drainLocked()
	active := t.index >= 0 || drained
	c.armLocked(t, d)
	c.mu.Unlock()
	return active
}

// lock locks the timer's clock and returns it. A Timer not made by a Clock
// has none, which is a programmer error worth a clear message.
func (t *Timer) lock(what string) *Clock {
	c := t.clock
	if c == nil {
		panic(fmt.Sprintf("fakeclock: Timer.%s: timer not created by a Clock", what))
	}
	c.mu.Lock()
	return c
}

// disarmLocked removes t from the heap and drains its channel, reporting
// whether either found something to cancel.
func (t *Timer) disarmLocked() bool {
	active := t.drainLocked()
	if t.index >= 0 {
		t.clock.removeLocked(t.index)
		active = true
	}
	return active
}

// drainLocked discards an undelivered value from the timer's channel. Doing
// it under the clock's lock, where fireLocked sends, makes Stop/Reset and
// firing atomic with respect to each other.
func (t *Timer) drainLocked() bool {
	if t.ch == nil {
		return false
	}
	select {
	case <-t.ch:
		return true
	default:
		return false
	}
}

// fireLocked is called with t just removed from the heap and the clock at
// its deadline. Channel timers are served here, under the lock (the send
// never blocks); a callback is returned for the caller to run unlocked.
func (t *Timer) fireLocked() Firer {
	if t.fire != nil {
		return t.fire
	}
	select {
	case t.ch <- t.clock.base.Add(t.when):
	default: // receiver is behind: drop the tick, as time.Ticker does
	}
	if t.period > 0 {
		t.clock.armAtLocked(t, addSat(t.when, t.period))
	}
	return nil
}

// Ticker delivers the tick time on its channel every period. It embeds its
// Timer by value so a ticker is a single allocation (plus its channel).
type Ticker struct {
	t Timer
}

// C returns the channel on which ticks are delivered.
func (k *Ticker) C() <-chan time.Time {
	return k.t.ch
}

// Stop turns the ticker off and discards an undelivered tick.
func (k *Ticker) Stop() {
	k.t.Stop()
}

// Reset stops the ticker and restarts it with period d, the first tick at
// Now()+d, as time.Ticker.Reset does. d <= 0 panics.
func (k *Ticker) Reset(d time.Duration) {
	if d <= 0 {
		panic(fmt.Sprintf("fakeclock: Ticker.Reset: non-positive interval %s", d))
	}
	c := k.t.lock("Reset")
	k.t.drainLocked()
	k.t.period = d
	c.armLocked(&k.t, d)
	c.mu.Unlock()
}
