// Package liveness is the liveness oracle: SPEC §3.2 L1–L10, judged along
// the event stream where a deadline is part of the property and, at
// Settled, on what the stream showed of each pod by the end of the settle
// phase (its last query answers, its calls, its updates).
package liveness

import (
	"fmt"
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/model/ops"
	"github.com/podsim/podsim/oracle"
)

// The liveness oracle (SPEC §3.2 L1–L9, docs/design.md "Oracles" 4). Liveness
// cannot be seen at any one instant, so the oracle judges two ways:
//
//   - along the stream, where a deadline is part of the property: the
//     SyncKnownPods that must purge a finished record (L2, L4), the SyncPod
//     due within one housekeeping period of a restart (L4), the killPodNow
//     that must not time out (L6), a purge that loses a running pod (L1);
//   - at Settled, after the settle phase and the drain (world/settle.go),
//     on what the stream showed: anything not done then never will be
//     (L1–L5, L7, L8), unless the plan or the time left excuse it. No
//     record of the target is read (docs/design.md, "Observable-only
//     judging"): "final" below is a pod's last query answers, "started"
//     that a non-runtime sync call began in its incarnation.
//
// The rules ("quiesce" is when the inputs stopped, View.Settle):
//
//	L1  final TR ⇒ terminated; a pod a SyncKnownPods did not list is TR by
//	    Settled; a purged incarnation that ran a sync call had terminated.
//	L2  final terminated ⇒ finished; a SyncKnownPods purges every record
//	    finished and not desired when it began; a final unstarted record
//	    never seen at runtime was not left by a SyncKnownPods that omitted it.
//	L3  quiescent: no sync call in flight at Settled, and no update owed a
//	    take (as L9 owes it) left untaken.
//	L4  a SyncKnownPods purges a finished record that a create asked to
//	    restart (while termination was requested) and that is desired; the
//	    new incarnation's SyncPod begins ≤ one housekeeping period after both
//	    (not owed if it is static, deleted, terminal or killed first); a
//	    desired pod is known again after the next housekeeping.
//	L5  when no pod holds a static full name (started, not finished), a
//	    desired waiter of it has started once nothing changed among the
//	    name's pods for retryWithin before quiesce; a static pod killed
//	    while waiting finished (with no call).
//	L6  killPodNow returns nil if, strictly before it returned, the pod
//	    could no longer run containers or its completion fired.
//	L7  a non-static pod in config with a deletion timestamp has a finished
//	    record (a static pod has no API object to delete).
//	L8  a failed or cancelled call is followed by another call for the pod
//	    unless it finished or was purged (errors within retryWithin of
//	    quiesce excepted).
//	L9  an accepted update is taken within a bound once its pod is idle
//	    (bounded.go).
//	L10 every worker goroutine of the run has returned by the end of the
//	    drain after Settled (goroutines.go: an oracle of its own, one per
//	    run, NewWorkerLeaks).
//
// Every message names the pod, its state and what never happened.

// Periods are the target's timing that the properties assume.
type Periods struct {
	// RetryWithin is the longest a correct kubelet takes to retry a pod: a
	// jittered error backoff (≤ 1.5 × 10 s, also a refused static
	// waiter's), the sync loop's tick turning it into UpdatePod(sync), and
	// a housekeeping period for pods only housekeeping drives (orphans).
	// Obligations younger than this when the inputs stopped are not judged.
	RetryWithin time.Duration
	// Resync is the pod workers' resync interval: after an error holding
	// a BackoffError the retry may wait until the earliest expiry, up to
	// this (jittered), longer than RetryWithin allows; L8 and L9 start
	// their clocks at that wait's end (backoffRetry).
	Resync time.Duration
	// Housekeeping is how often housekeeping runs SyncKnownPods.
	Housekeeping time.Duration
	// TakeKill and TakeUpdate bound how long an accepted update may wait,
	// once its pod has no sync call in flight, before it is taken (L9,
	// bounded.go): a kill, and any other update. 0 leaves L9 unjudged.
	TakeKill, TakeUpdate time.Duration
}

// unset marks a milestone that has not happened (virtual time starts at 0).
const unset = time.Duration(-1)

type liveness struct {
	periods Periods
	pods    *history.Lookup[types.UID, *podTrack]
	uids    []types.UID                  // the keys of pods, sorted
	tracks  []*podTrack                  // pods' values, in the order of uids
	open    *history.Lookup[string, int] // by goroutine: its record's index in calls (openOf)
	calls   []openCall                   // the goroutines' client calls in progress
	last    lastOpen                     // the goroutine openOf looked up last
	// lastProbe is the probe of the last release with one, when
	// lastTracked pods were tracked (lockReleasing; Reset: none).
	lastProbe   *history.Probe
	lastTracked int
	// dues counts the pods with an obligation open (podTrack.due set:
	// updateTookEffect opens one, taken closes it); checkTakes walks the
	// pods only when some is.
	dues int
	// takesAfter is a time no open obligation's bound passes before or
	// at, for checkTakes (unset: none known).
	takesAfter time.Duration
	known      history.Few[string, *knownCall] // by goroutine: its SyncKnownPods in progress
	// freeKnown is a SyncKnownPods' record that returned, for the next
	// (newKnownCall).
	freeKnown *knownCall
	freePods  []*podTrack           // the pod records of the runs before Reset, for track to reuse
	waits     map[int]*killWait     // by call ID: killPodNow waits in progress
	fired     map[int]time.Duration // by completion ID: when it fired
	// lastKnownAt is when the last SyncKnownPods took the pod lock.
	lastKnownAt time.Duration
	settled     bool
	out         []history.Violation
	seen        map[string]bool
	// checked counts the obligations found met, per invariant (checked[n]
	// is Ln's), so tests can tell a passing run from a vacuous one: an
	// array, not a map keyed by the invariant's name, which a take would
	// hash (Checked makes the map).
	checked [10]int
	// maxTake: the longest wait seen before a take, per kind (takeKinds),
	// and whether one was seen (MaxTake makes the map).
	maxTake  [2]time.Duration
	tookKind [2]bool
}

// killWait is killPodNow's wait for its kill (ops.KillPodNowDone).
type killWait struct {
	uid          types.UID
	completionID int
	at           time.Duration
	// notRunningAt is when the pod was first seen unable to run containers
	// (CouldHaveRunningContainers=false) after the kill was applied.
	notRunningAt time.Duration
}

// New returns the liveness oracle of a run (SPEC §3.2 L1–L9) on a target
// with the given periods.
func New(p Periods) oracle.Oracle { return newLiveness(p) }

func newLiveness(p Periods) *liveness {
	return &liveness{periods: p, pods: history.NewLookup[types.UID, *podTrack](), open: history.NewLookup[string, int](),
		waits: map[int]*killWait{}, fired: map[int]time.Duration{},
		lastKnownAt: unset, takesAfter: unset, seen: map[string]bool{}}
}

// Reset implements oracle.Resetter: l as New(l's periods) makes it, its
// maps and buffers emptied and kept.
func (l *liveness) Reset() {
	l.freePods = append(l.freePods, l.tracks...) // only pods and tracks hold a record
	l.pods.Reset()
	l.open.Reset()
	clear(l.calls)
	l.known.Reset()
	clear(l.waits)
	clear(l.fired)
	clear(l.seen)
	clear(l.tracks)
	*l = liveness{periods: l.periods, pods: l.pods, uids: l.uids[:0], tracks: l.tracks[:0], open: l.open, calls: l.calls[:0], known: l.known,
		freeKnown: l.freeKnown, freePods: l.freePods, waits: l.waits, fired: l.fired, lastKnownAt: unset, takesAfter: unset, seen: l.seen}
}

// Observe implements oracle.Oracle.
func (l *liveness) Observe(v oracle.View, ev *history.Event) {
	if l.settled {
		return
	}
	l.checkTakes(ev)
	switch ev.Kind {
	case history.ClientCall:
		l.clientCall(ev)
	case history.ClientReturn:
		l.clientReturn(ev)
	case history.LockAcquired:
		l.lockAcquired(ev)
	case history.LockReleasing:
		l.lockReleasing(v, ev)
	case history.CallbackBegin:
		l.callbackBegin(ev)
	case history.CallbackEnd:
		l.callbackEnd(ev)
	case history.Fired:
		if c, ok := ev.Input.(ops.CompletionFired); ok {
			l.fired[c.ID] = ev.At
		}
	case history.Settled:
		l.settled = true
		l.judge(v, ev)
	}
}

// Finish implements Oracle. A run that ended without Settled (deadlock,
// step or time bound, panic) is the scheduler's failure, reported with its
// reason in Result.Err; one that ended normally without it is the world's.
func (l *liveness) Finish(_ oracle.View, runErr error) []history.Violation {
	if !l.settled && runErr == nil {
		l.violate("settle", &history.Event{}, "the run ended without a Settled event: nothing was judged")
	}
	return l.out
}

func (l *liveness) violate(invariant string, ev *history.Event, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if l.seen[invariant+msg] {
		return
	}
	l.seen[invariant+msg] = true
	l.out = append(l.out, history.Violation{Oracle: "liveness", Invariant: invariant, Message: msg, At: ev.At, Seq: ev.Seq})
}

// pod is uid's track, nil before its first sight.
func (l *liveness) pod(uid types.UID) *podTrack {
	p, _ := l.pods.Get(uid)
	return p
}

// track returns uid's track, starting one on first sight.
func (l *liveness) track(uid types.UID) *podTrack {
	if p := l.pod(uid); p != nil {
		return p
	}
	p := history.Reuse(&l.freePods)
	initPodTrack(p, uid)
	l.pods.Set(uid, p)
	i, _ := history.Search(l.uids, uid)
	l.uids = slices.Insert(l.uids, i, uid)
	l.tracks = slices.Insert(l.tracks, i, p)
	return p
}

// Checked counts the obligations o (from New) found met, per invariant, so
// a test can tell a passing run from a vacuous one.
func Checked(o oracle.Oracle) map[string]int {
	out := map[string]int{}
	for n, c := range o.(*liveness).checked {
		if c > 0 {
			out[fmt.Sprintf("L%d", n)] = c
		}
	}
	return out
}
