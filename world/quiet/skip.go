package quiet

import (
	"math"
	"time"
)

// Quiet ticks. Once housekeeping finds the world still (Tick) it only
// waits for QuietFor to pass, and every tick until then is a repeat:
// housekeeping's SyncKnownPods returns what it did, the sync loop finds
// nothing due, the status manager has nothing to write or echo. So the
// daemons sleep through those ticks (NextTick) and wake on the same grid
// at the first tick at or after the end of the wait or the earliest
// work-queue entry's due time, whichever comes first. Nothing else can
// happen in between: nothing stirs but the daemons (calm), and no entry
// falls due. A skip never reaches the end of the settle phase: there the
// driver's wake-up races the daemons' ticks, a race the skipped ticks'
// schedule draws would decide otherwise (when the daemons stop, so when
// the drain ends); a world still too late to end early ticks to the end.
// The event stream loses only the repeated SyncKnownPods; the quiet tick,
// QuiesceAt and the verdict are those of the ticking world
// (TestQuietSettleSameVerdict compares with a full phase that ticks
// throughout; TestQuietTicksSkipped with the early end that ticks).
//
// The skip holds in every world without a mutant, kubelet bug or B16's
// fault mode (World.AsWritten): the kubelet's status manager is one of
// the daemons (it sleeps with NextTick too), and its other actors keep
// the world busy while they work (World.Busy). A mutant's runs, which the
// gate and the regression scripts pin down to the operation, keep every
// tick.

// noEntry is nextDue when the work queue is empty.
const noEntry = time.Duration(math.MaxInt64)

// skip runs at a still housekeeping tick that did not end the phase: it
// lets the daemons skip to the next moment that can matter.
func (q *Watch) skip() {
	if !q.mayskip() {
		return
	}
	end, due := q.stillSince+q.quietFor, q.nextDue
	if q.Rules.CarelessSkip {
		due = noEntry
	} else if q.retryDueBefore(end) && !q.Rules.SkipRetries {
		return // the retries keep every tick (static.go)
	}
	if until := min(end, due); until < q.settleEnd {
		q.skipUntil = until
	}
}

// mayskip: this run skips ticks (not a comparison run that keeps them).
func (q *Watch) mayskip() bool {
	return !q.Rules.Full && !q.Rules.TickAll && q.shortcuts()
}

// NextTick is how long a daemon of the given period sleeps from now: one
// period, or as many as reach the first of its ticks at or after
// skipUntil. A skip ends at the first tick that is not skipped: a still
// world is checked again from there.
func (q *Watch) NextTick(now, period time.Duration) time.Duration {
	if q.skipUntil <= now+period || q.fired {
		return period
	}
	return (q.skipUntil - now + period - 1) / period * period
}
