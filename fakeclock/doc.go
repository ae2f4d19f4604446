// Package fakeclock is podsim's virtual time: a passive clock whose timers
// fire in a fixed, documented order.
//
// # Why passive
//
// The simulation must be a pure function of its seed. A clock that advanced
// by itself (from a goroutine, or from wall time) would make "which timer
// fires before which goroutine runs" depend on the host scheduler, and a
// failing seed would not replay. So this clock never moves on its own: time
// stands still until its driver (the sim scheduler, when nothing is runnable,
// or a test) calls AdvanceTo or Advance. Nothing in the package starts a
// goroutine, and every timer callback runs synchronously on the goroutine that
// advances the clock.
//
// # Firing order
//
// Every arming of a timer (AfterFunc, Schedule, NewTimer, After, a ticker
// period, and Reset) takes the next value of a per-clock sequence number.
// Pending timers fire in (deadline, sequence) order: earlier deadlines first,
// and timers with equal deadlines in the order they were armed. Reset counts
// as arming again, so a reset timer fires after every timer with the same
// deadline that was armed before the Reset, exactly as if it had been created
// at that moment (the time.Timer view of Reset).
//
// While a callback runs, Now returns that timer's deadline. A timer armed by
// a callback with a deadline no later than the AdvanceTo target fires in the
// same AdvanceTo, in its place in the order; when AdvanceTo returns, Now is
// the target. A timer armed with a duration <= 0 is due at Now: it fires at
// the next AdvanceTo or Advance(0), never synchronously inside AfterFunc, so
// arming a timer is never a scheduling point of its own.
//
// Stopping or resetting a timer from inside another timer's callback takes
// effect at once: a stopped timer does not fire even if its deadline equals
// the running callback's.
//
// # Locking
//
// A Clock is safe for use by several goroutines; it guards its state with a
// sync.Mutex. Callbacks never run under that mutex, so a callback may call any
// method of the clock or of any timer (AfterFunc, Stop, Reset, Now, even
// Advance). The ordering contract above assumes one goroutine drives time at
// a time; with concurrent drivers, time still never moves backwards.
//
// # Channels
//
// To satisfy k8s.io/utils/clock, NewTimer, After, Tick and NewTicker are built
// on the same ordered heap: each owns a channel of capacity 1 that receives
// the deadline when the timer fires (a non-blocking send: a full channel drops
// the tick, as time.Ticker does). Stop and Reset drain that channel, so, as
// with time.Timer since Go 1.23, no stale value is received after they return
// and Stop reports true for a timer that fired but was never received.
package fakeclock
