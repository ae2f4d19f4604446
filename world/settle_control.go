package world

import "time"

// SettleRules switch the settle phase's shortcuts off, or for deliberately
// wrong ones: how tests show that ending the phase early, or skipping its
// still ticks, gives the verdict the full phase gives, and that the
// comparison can fail. The zero value is what every run uses.
type SettleRules struct {
	// Full keeps the whole SettleTime even once the world is quiescent.
	Full bool
	// TickAll keeps every housekeeping tick of a still world.
	TickAll bool
	// CarelessResync is a wrong quiet rule: it trusts that any syncer's
	// resync can only repeat.
	CarelessResync bool
	// CarelessSkip is a wrong skip: it sleeps past due work-queue entries.
	CarelessSkip bool
	// KeepPastSettle keeps the world busy while the work queue holds an
	// entry due after the settle phase's end (the rule before pastSettle).
	KeepPastSettle bool
	// CarelessHorizon is a wrong pastSettle: it trusts that an entry due
	// after QuietFor from now never fires.
	CarelessHorizon bool
	// SkipRetries is a wrong skip: it sleeps up to the next due entry
	// even while a static waiter's retry falls due in the wait, which
	// changes the schedule draws of the retries after it.
	SkipRetries bool
	// MutantShortcuts applies the shortcuts (repeatable resyncs, skipped
	// quiet ticks) to a run with a mutant, kubelet bug or fault mode on,
	// which keeps them off otherwise (shortcutWorld): how tests show that
	// the reasoning holds with a bug in the code too.
	MutantShortcuts bool
}

// SetSettleRules sets the settle phase's rules; call before Run.
func (w *World) SetSettleRules(r SettleRules) {
	w.quiet.full, w.quiet.tickAll, w.quiet.carelessResync, w.quiet.carelessSkip = r.Full, r.TickAll, r.CarelessResync, r.CarelessSkip
	w.quiet.mutantShortcuts, w.quiet.skipRetries = r.MutantShortcuts, r.SkipRetries
	w.quiet.keepPastSettle, w.quiet.carelessHorizon = r.KeepPastSettle, r.CarelessHorizon
}

// Settling reports whether the settle phase has begun.
func (w *World) Settling() bool { return w.quiet.settling }

// EndSettle ends the settle phase now, as if the world were quiescent
// (tests: a careless end); call from a simulated goroutine once Settling.
func (w *World) EndSettle() {
	if !w.quiet.fired {
		w.quiet.fired = true
		w.quiet.event.Fire()
	}
}

// RepeatedRetries counts the static waiters' retries that were not
// counted as inputs, proven repeats (settle_quiet_static.go).
func (w *World) RepeatedRetries() int { return w.quiet.repeated }

// QuietAt is when housekeeping found the world quiescent and ended the
// settle phase early; ok is false if it never did.
func (w *World) QuietAt() (at time.Duration, ok bool) { return w.quiet.At, w.quiet.fired }

// KeepBusy adds a predicate that keeps the settle phase going while it
// holds, as the kubelet's actors do while they work; call before Run.
func (w *World) KeepBusy(busy func() bool) { w.busy = append(w.busy, busy) }
