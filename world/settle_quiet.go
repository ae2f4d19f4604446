package world

import (
	"maps"
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/model"
	"github.com/podsim/podsim/sim"
	"github.com/podsim/podsim/workers"
)

// The settle phase's early end. Most of a seed's cost is the settle phase:
// SettleTime of virtual time in which housekeeping and the sync loop keep
// ticking although, in most runs, nothing is left to do after a few
// seconds. So the phase ends as soon as the world is provably quiescent —
// every later tick would change nothing — and the verdict is the one the
// full phase would give (TestQuietSettleSameVerdict runs every family
// both ways and compares).
//
// A housekeeping tick in the settle phase finds the world still when, at
// the end of this tick and of the previous one,
//
//   - no goroutine stirs (sim.Scheduler.Stirring) but the world's periodic
//     daemons (tickers): no worker is runnable, in a runtime call (a timer)
//     or waiting for a lock, no killPodNow is waiting for its timeout;
//   - no busy predicate holds (w.busy): no killPodNow is in progress;
//   - the work queue holds no entry for a pod in config (such an entry
//     becomes an UpdatePod later; entries of other pods are dropped);
//
// and between the two ticks the only input was this tick's SyncKnownPods
// (no UpdatePod, kill or restart; queries change nothing), which returned
// what the previous one did. Then nothing can happen any more but the same
// housekeeping tick with the same result, and sync-loop ticks that find
// nothing to do. The world is quiescent once every tick has found it still
// for QuietFor: the liveness oracle excuses an obligation younger than
// RetryWithin when the inputs stop (QuiesceAt), so the inputs must not
// stop before every obligation that arose before the stillness is that old.
//
// Extending it: an actor that can still change something while every
// worker is idle (a daemon with its own timers, a retry, a lagging status
// write) appends a predicate that reports it still busy,
//
//	w.busy = append(w.busy, func() bool { return len(m.pending) > 0 })
//
// and an actor with a periodic daemon names the daemon's goroutine in
// w.tickers, so that its period timer does not count as stirring, and
// sleeps between its ticks with w.quiet.nextTick, so that it sleeps
// through the quiet ticks with the others (settle_quiet_skip.go). A
// predicate may read the world and the actor's own state; it must not run
// a simulation operation (it runs inside housekeeping's sync-loop
// iteration, and checking should not change the schedule; the one
// exception is the work queue's lock, taken last, once nothing stirs).

// QuietFor is how long the world must stay still to be quiescent: longer
// than any obligation the liveness oracle excuses at QuiesceAt.
const QuietFor = RetryWithin + HousekeepingPeriod

// quietness is the settle phase's watch for quiescence.
type quietness struct {
	// settling: the settle phase is on and housekeeping watches.
	settling bool
	// full keeps the whole SettleTime even once quiet (the comparison
	// with the early end in tests).
	full bool
	// event is fired by the first housekeeping tick that finds the world
	// quiescent; At is when.
	event *sim.Event
	fired bool
	At    time.Duration
	// stillSince is when the current run of still ticks began.
	stillSince time.Duration
	// inputs counts the calls that may change the pod workers (every call
	// but a query), known is the result of the last SyncKnownPods;
	// prevCalm, prevInputs and prevKnown are those of the previous tick.
	inputs     int
	known      map[types.UID]workers.PodWorkerSync
	prevCalm   bool
	prevInputs int
	prevKnown  map[types.UID]workers.PodWorkerSync
	// syncs is the last sync call per pod (settle_quiet_resync.go).
	syncs map[types.UID]lastSyncPod
	// updates is the last UpdatePod per pod; retries are the static
	// waiters whose retry the last calm tick proved a repeat, proven those
	// the current check proves; nextRetry is the earliest due time of
	// one; repeat marks the UpdatePod being made as such a retry, repeated
	// counts them (settle_quiet_static.go).
	updates         map[types.UID]lastUpdate
	retries, proven map[types.UID]bool
	nextRetry       time.Duration
	repeat          bool
	repeated        int
	// foreignSyncer: the pod workers call a test's syncer, not the world's
	// fake runtime, so a resync may do anything. carelessResync is a wrong
	// rule for tests: a resync repeats whatever the syncer and the world.
	foreignSyncer, carelessResync bool
	// nextDue is when the work queue's earliest entry is due (read at the
	// last calm check; noEntry if none). skipUntil: the daemons may sleep
	// through their ticks until then (quiet ticks, settle_quiet_skip.go);
	// settleEnd is when the settle phase ends at the latest.
	nextDue, skipUntil, settleEnd time.Duration
	// tickAll keeps every tick of a still world (tests compare);
	// carelessSkip is a wrong skip for tests: it sleeps past due entries;
	// mutantShortcuts takes the shortcuts with a mutant on (tests).
	tickAll, carelessSkip, mutantShortcuts, skipRetries bool
	// keepPastSettle switches pastSettle off, carelessHorizon is a wrong
	// one (tests).
	keepPastSettle, carelessHorizon bool
}

// settleQuietly waits up to d for the world to go quiet; it reports
// whether it did (the settle phase may end early).
func (w *World) settleQuietly(d time.Duration) bool {
	q := &w.quiet
	q.event = w.S.NewEvent("settle/quiet")
	q.settling, q.stillSince = true, w.S.Elapsed()
	q.settleEnd = w.S.Elapsed() + d
	w.busy = append(w.busy, w.killNowBusy)
	return q.event.WaitFor(d)
}

// noteInput counts one call (observe.go's call) for quiescence: a query
// changes nothing, and a static waiter's proven retry only repeats
// (settle_quiet_static.go).
func (q *quietness) noteInput(in model.Input) {
	_, isQuery := in.(model.Query)
	switch {
	case isQuery:
	case q.repeat:
		q.repeat = false
		q.repeated++
	default:
		q.inputs++
	}
}

// housekeepingTick is the housekeeping daemon's tick: HandlePodCleanups,
// then, in the settle phase, the check for quiescence.
func (w *World) housekeepingTick() {
	w.housekeeping()
	q := &w.quiet
	if !q.settling || q.fired {
		return
	}
	calm := w.calm()
	q.retries = nil
	if calm {
		q.retries = q.proven
	}
	still := calm && q.prevCalm && q.inputs == q.prevInputs+1 && maps.Equal(q.known, q.prevKnown)
	q.prevCalm, q.prevInputs, q.prevKnown = calm, q.inputs, q.known
	switch {
	case !still:
		q.stillSince = w.S.Elapsed()
	case w.S.Elapsed()-q.stillSince >= QuietFor:
		q.fired, q.At = true, w.S.Elapsed()
		q.event.Fire()
	default:
		w.skipQuietTicks()
	}
}

// calm: nothing stirs, no actor is busy and no resync is queued. The queue
// is read last: Entries takes its lock, a scheduling point at which only
// tickers can run (nothing else stirs), so Stirring is asked again.
func (w *World) calm() bool {
	w.quiet.proven, w.quiet.nextRetry = nil, noEntry
	if w.S.Stirring(w.isTicker) || slices.ContainsFunc(w.busy, func(busy func() bool) bool { return busy() }) {
		return false
	}
	return !w.queueBusy() && !w.S.Stirring(w.isTicker)
}

// isTicker reports the world's periodic daemons and the driver (waiting
// for the end of the settle phase): their timers are not work.
func (w *World) isTicker(goroutine string) bool {
	switch goroutine {
	case "driver", "syncloop", "housekeeping":
		return true
	}
	return slices.Contains(w.tickers, goroutine)
}

func (w *World) killNowBusy() bool { return len(w.killNow) > 0 }

// queueBusy: the work queue holds an entry for a pod in config, which the
// sync loop will turn into an UpdatePod when due, unless that UpdatePod is
// a resync that can only repeat (settle_quiet_resync.go), a static
// waiter's retry that can only repeat (settle_quiet_static.go), or it
// falls due after the settle phase's end (pastSettle).
func (w *World) queueBusy() bool {
	q := &w.quiet
	var due []types.UID
	q.nextDue = noEntry
	entries := w.Queue.Entries()
	for _, e := range entries {
		at := w.S.Elapsed() + e.Due.Sub(w.S.Now())
		if w.pastSettle(at) {
			continue
		}
		q.nextDue = min(q.nextDue, at)
		if p := w.pods[e.UID]; p != nil && p.inConfig {
			due = append(due, e.UID)
		}
	}
	if len(due) > 0 && !w.resyncsRepeat(due) {
		return true
	}
	for _, e := range entries {
		if q.proven[e.UID] {
			q.nextRetry = min(q.nextRetry, w.S.Elapsed()+e.Due.Sub(w.S.Now()))
		}
	}
	return false
}

// pastSettle: an entry due at the given time never becomes an UpdatePod:
// the sync loop's last tick in the settle phase is at its end at the
// latest (settleEnd; the daemons stop once the inputs do), and GetWork
// hands out entries due at or before the tick's time. Only in a world
// that takes the shortcuts (shortcutWorld), like the others: a mutant's
// runs end as they always did.
func (w *World) pastSettle(at time.Duration) bool {
	q := &w.quiet
	if q.carelessHorizon {
		return at > w.S.Elapsed()+QuietFor
	}
	return at > q.settleEnd && !q.keepPastSettle && w.shortcutWorld()
}
