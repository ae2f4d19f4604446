package quiet

import (
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/model/ops"
	"github.com/podsim/podsim/workers"
)

// World is what a Watch reads of the world it watches. Nothing here
// changes the world; the reads that take a lock are scheduling points (at
// which only the world's periodic daemons can run, nothing else stirring),
// so the Watch asks Stirring again after them.
type World interface {
	// Elapsed is the virtual time since the run began; Now is the fake
	// clock's time.
	Elapsed() time.Duration
	Now() time.Time
	// Stirring: a goroutine other than the world's periodic daemons can
	// still act (sim.Scheduler.Stirring: no scheduling point).
	Stirring() bool
	// Busy: an actor reports work in progress (the world's busy
	// predicates: a killPodNow in progress, the kubelet's actors at work).
	Busy() bool
	// Entries are the work queue's entries (its lock: a scheduling point),
	// in buf's array (a buffer the Watch reuses).
	Entries(buf []workers.QueueEntry) []workers.QueueEntry
	// Config is what the world holds of a pod (read without the pod lock).
	Config(uid types.UID) Config
	// PodStates are the pod workers' records (the pod lock: a scheduling
	// point).
	PodStates() []workers.PodStateSnapshot
	// Holder is the UID started under a static pod's full name, "" if
	// none (the pod lock: a scheduling point).
	Holder(fullName string) types.UID
	// AsWritten: the world runs the code as written: no mutant, kubelet bug
	// or runtime fault mode (B16's uncancellable pull) switched on. The
	// shortcuts (repeatable entries, skipped quiet ticks, entries past the
	// settle phase) are argued for this world only; a mutant's runs, which
	// the gate and the regression scripts pin down to the operation, keep
	// every tick.
	AsWritten() bool
	// RuntimeRepeats: the pod workers call the world's own fake runtime
	// (not a test's syncer), and it can only repeat: natural completion is
	// off and the injected errors are healed.
	RuntimeRepeats() bool
}

// Config is what the world holds of a pod, for the repeat rules
// (resync.go, static.go).
type Config struct {
	// InConfig: the pod is in config (a queued entry of a pod that is not
	// is dropped by the sync loop).
	InConfig bool
	// Steady: in config, not deleted, not terminal, not rejected at
	// admission and, in the kubelet's world, admitted (the sync loop syncs
	// it).
	Steady  bool
	Static  bool
	Version int // its config version
	// Runs: the runtime runs the pod, and the kubelet around the pod
	// workers (if any) would meet a repeated SyncPod as it met the last
	// one (resync.go).
	Runs bool
}

// Rules switch the settle phase's shortcuts off, or for deliberately
// wrong ones: how tests show that ending the phase early, or skipping its
// still ticks, gives the verdict the full phase gives, and that the
// comparison can fail. The zero value is what every run uses.
type Rules struct {
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
	// TickIdle keeps every idle tick of a world that is not still (the
	// runs before idle.go): how tests compare the skip with the ticking
	// run.
	TickIdle bool
	// CarelessIdle is a wrong idle skip: it sleeps past the work queue's
	// due entries, so the sync loop hands a resync out late.
	CarelessIdle bool
	// MutantShortcuts applies the shortcuts (repeatable resyncs, skipped
	// quiet ticks) to a run with a mutant, kubelet bug or fault mode on,
	// which keeps them off otherwise (World.AsWritten): how tests show that
	// the reasoning holds with a bug in the code too.
	MutantShortcuts bool
}

// Watch is the settle phase's watch for quiescence. Its notes are taken
// throughout the run; it checks housekeeping's ticks from Begin on.
type Watch struct {
	// Rules are this run's rules (set before the run).
	Rules Rules
	world World
	// settling: the settle phase is on and housekeeping's ticks are
	// checked; fired: the world was found quiescent (or the phase ended),
	// at is when.
	settling, fired bool
	at              time.Duration
	// quietFor is how long the world must stay still; stillSince is when
	// the current run of still ticks began.
	quietFor, stillSince time.Duration
	// inputs counts the calls that may change the pod workers (every call
	// but a query), known is the result of the last SyncKnownPods;
	// prevCalm, prevInputs and prevKnown are those of the previous tick.
	inputs     int
	known      workers.KnownPods
	prevCalm   bool
	prevInputs int
	prevKnown  workers.KnownPods
	// syncs is the last sync call per pod (resync.go).
	syncs map[types.UID]lastSyncPod
	// updates is the last UpdatePod per pod; retries are the static
	// waiters whose retry the last calm tick proved a repeat, proven those
	// the current check proves; nextRetry is the earliest due time of
	// one; repeat marks the UpdatePod being made as such a retry, repeated
	// counts them (static.go).
	updates         map[types.UID]lastUpdate
	retries, proven map[types.UID]bool
	nextRetry       time.Duration
	repeat          bool
	repeated        int
	// nextDue is when the work queue's earliest entry is due (read at the
	// last calm check; noEntry if none). skipUntil: the daemons may sleep
	// through their ticks until then (quiet ticks, skip.go); settleEnd is
	// when the settle phase ends at the latest.
	nextDue, skipUntil, settleEnd time.Duration
	entries                       []workers.QueueEntry // queueBusy's buffer
	// idle: the last calm check found nothing stirring and no actor busy,
	// whatever the queue held; prevIdle is the tick before's (idle.go).
	idle, prevIdle bool
}

// Renew makes q a zero Watch for a lane's next run (world.Renew), in its
// memory: the maps of the last sync and update per pod cleared, not made
// again, and queueBusy's buffer kept.
func (q *Watch) Renew() {
	clear(q.syncs)
	clear(q.updates)
	*q = Watch{syncs: q.syncs, updates: q.updates, entries: q.entries[:0]}
}

// Begin starts checking housekeeping's ticks: the settle phase runs from
// now for at most d, and the world must stay still for quietFor.
func (q *Watch) Begin(w World, now, d, quietFor time.Duration) {
	q.world, q.quietFor = w, quietFor
	q.settling, q.stillSince = true, now
	q.settleEnd = now + d
}

// Watching: the settle phase is on and the world not yet found quiescent.
func (q *Watch) Watching() bool { return q.settling && !q.fired }

// Settling reports whether the settle phase has begun.
func (q *Watch) Settling() bool { return q.settling }

// End ends the watch as if the world were quiescent; false if it had ended.
func (q *Watch) End() bool {
	if q.fired {
		return false
	}
	q.fired = true
	return true
}

// QuietAt is when a tick found the world quiescent; ok is false if none did.
func (q *Watch) QuietAt() (at time.Duration, ok bool) { return q.at, q.fired }

// Repeated counts the static waiters' retries that were not counted as
// inputs, proven repeats (static.go).
func (q *Watch) Repeated() int { return q.repeated }

// NoteInput counts one call to the pod workers: a query changes nothing,
// and a static waiter's proven retry only repeats (static.go).
func (q *Watch) NoteInput(in ops.Input) {
	_, isQuery := in.(ops.Query)
	switch {
	case isQuery:
	case q.repeat:
		q.repeat = false
		q.repeated++
	default:
		q.inputs++
	}
}

// NoteKnown records what a SyncKnownPods returned.
func (q *Watch) NoteKnown(known workers.KnownPods) { q.known = known }

// Tick checks a housekeeping tick of the settle phase (after its
// HandlePodCleanups, while Watching): true when it finds the world
// quiescent, and the caller ends the phase.
func (q *Watch) Tick() bool {
	calm := q.calm()
	q.retries = nil
	if calm {
		q.retries = q.proven
	}
	repeat := q.inputs == q.prevInputs+1 && slices.Equal(q.known, q.prevKnown)
	still := calm && q.prevCalm && repeat
	idle := !calm && q.idle && q.prevIdle && repeat
	q.prevCalm, q.prevInputs, q.prevKnown, q.prevIdle = calm, q.inputs, q.known, q.idle
	now := q.world.Elapsed()
	switch {
	case !still:
		q.stillSince = now
		if idle {
			q.skipIdle()
		}
	case now-q.stillSince >= q.quietFor:
		q.fired, q.at = true, now
		return true
	default:
		q.skip()
	}
	return false
}

// calm: nothing stirs, no actor is busy and no entry is queued that can
// change anything. The queue is read last: Entries takes its lock, a
// scheduling point at which only tickers can run (nothing else stirs), so
// Stirring is asked again.
func (q *Watch) calm() bool {
	q.proven, q.nextRetry, q.idle = nil, noEntry, false
	if q.world.Stirring() || q.world.Busy() {
		return false
	}
	queued := q.queueBusy()
	q.idle = !q.world.Stirring()
	return !queued && q.idle
}

// queueBusy: the work queue holds an entry for a pod in config, which the
// sync loop will turn into an UpdatePod when due, unless that UpdatePod is
// a resync that can only repeat (resync.go), a static waiter's retry that
// can only repeat (static.go), or it falls due after the settle phase's
// end (pastSettle).
func (q *Watch) queueBusy() bool {
	w := q.world
	var due []types.UID
	q.nextDue = noEntry
	q.entries = w.Entries(q.entries)
	entries := q.entries
	for _, e := range entries {
		at := w.Elapsed() + e.Due.Sub(w.Now())
		if q.pastSettle(at) {
			continue
		}
		q.nextDue = min(q.nextDue, at)
		if w.Config(e.UID).InConfig {
			due = append(due, e.UID)
		}
	}
	if len(due) > 0 && !q.entriesRepeat(due) {
		return true
	}
	for _, e := range entries {
		if q.proven[e.UID] {
			q.nextRetry = min(q.nextRetry, w.Elapsed()+e.Due.Sub(w.Now()))
		}
	}
	return false
}

// pastSettle: an entry due at the given time never becomes an UpdatePod:
// the sync loop's last tick in the settle phase is at its end at the
// latest (settleEnd; the daemons stop once the inputs do), and GetWork
// hands out entries due at or before the tick's time. Only in a world
// that takes the shortcuts, like the others: a mutant's runs end as they
// always did.
func (q *Watch) pastSettle(at time.Duration) bool {
	if q.Rules.CarelessHorizon {
		return at > q.world.Elapsed()+q.quietFor
	}
	return at > q.settleEnd && !q.Rules.KeepPastSettle && q.shortcuts()
}

// shortcuts: this run takes the settle phase's shortcuts (World.AsWritten).
func (q *Watch) shortcuts() bool {
	return q.Rules.MutantShortcuts || q.world.AsWritten()
}
