package world

import (
	"time"

	"github.com/podsim/podsim/world/quiet"
)

// SettleRules switch the settle phase's shortcuts off, or for deliberately
// wrong ones (quiet.Rules); the zero value is what every run uses.
type SettleRules = quiet.Rules

// SetSettleRules sets the settle phase's rules; call before Run.
func (w *World) SetSettleRules(r SettleRules) { w.quiet.Rules = r }

// Settling reports whether the settle phase has begun.
func (w *World) Settling() bool { return w.quiet.Settling() }

// EndSettle ends the settle phase now, as if the world were quiescent
// (tests: a careless end); call from a simulated goroutine once Settling.
func (w *World) EndSettle() {
	if w.quiet.End() {
		w.quietEvent.Fire()
	}
}

// RepeatedRetries counts the static waiters' retries that were not
// counted as inputs, proven repeats (world/quiet's static.go).
func (w *World) RepeatedRetries() int { return w.quiet.Repeated() }

// QuietAt is when housekeeping found the world quiescent and ended the
// settle phase early; ok is false if it never did.
func (w *World) QuietAt() (at time.Duration, ok bool) { return w.quiet.QuietAt() }

// KeepBusy adds a predicate that keeps the settle phase going while it
// holds, as the kubelet's actors do while they work; call before Run.
func (w *World) KeepBusy(busy func() bool) { w.busy = append(w.busy, busy) }
