package scenarios

import (
	"fmt"
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/model"
	"github.com/podsim/podsim/workers"
)

// The safety oracle checks the step invariants S1–S19 of SPEC.md §3.1 on
// the World's event stream, online: on every callback (CallbackBegin,
// CallbackEnd) and at every release of the pod lock (LockReleasing), where
// it reads every query's answer through a safetyView. It is written from the
// SPEC, independently of package model's state machine (it uses only the
// vocabulary of model/ops.go), so that a bug shared by the workers and the
// model still shows here. It keeps, per UID, the incarnations of the record
// ("from record creation to purge"): an incarnation begins at the release
// of the pod lock that first shows the UID among the known UIDs and ends at
// the release that no longer shows it.
//
// What the event stream cannot show is reconstructed as follows:
//
//   - A client call takes effect in its critical section: the first
//     LockReleasing by the calling goroutine after its ClientCall (KillPodNow
//     returns its kill inside that critical section, which is why binding is
//     by goroutine, not by return).
//   - The update a worker's callback runs with was taken in the worker's
//     critical section before the callback (before the acknowledgement's
//     critical section for the terminating callbacks). The goroutine name is
//     worker/<uid> for every incarnation, so after a purge of an unfinished
//     record the old worker may still take the lock once on its way out; such
//     "lingering" sections widen the take to a range instead of guessing.
//   - The flags no query shows (evicted, deleted, restart requested, seen at
//     runtime, the effective grace) are derived from the inputs of the
//     updates as SPEC §1.4 applies them.

// safetyView is what the oracle reads of the pod workers while the pod lock
// is held: the exact answers of the query methods (SPEC §1.14). World
// provides it from workers' ...Locked accessors; tests script it.
type safetyView interface {
	KnownUIDs() []string
	Answers(uid string) workers.Answers
	PodsSynced() bool
	MirrorTerminating(fullname string) bool
}

// worldSafetyView reads the World's pod workers; valid only while the pod
// lock is held (the oracle reads it in Observe of LockReleasing).
type worldSafetyView struct{ pw *workers.PodWorkers }

func (v worldSafetyView) KnownUIDs() []string {
	var out []string
	for _, uid := range v.pw.KnownUIDsLocked() {
		out = append(out, string(uid))
	}
	return out
}

func (v worldSafetyView) Answers(uid string) workers.Answers {
	return v.pw.AnswersLocked(types.UID(uid))
}

func (v worldSafetyView) PodsSynced() bool { return v.pw.PodsSyncedLocked() }

func (v worldSafetyView) MirrorTerminating(fullname string) bool {
	return v.pw.MirrorTerminatingLocked(fullname)
}

// safetyView returns the view of w's pod workers the safety oracle reads.
func (w *World) safetyView() safetyView { return worldSafetyView{pw: w.PW} }

// newSafety returns the step-invariant oracle (SPEC §3.1 S1–S19).
func newSafety(CheckOptions) Oracle { return newSafetyOracle() }

// safetyOracle is the online checker of S1–S19.
type safetyOracle struct {
	// viewOf reads the pod workers of a World (tests plant faults here).
	viewOf    func(*World) safetyView
	pods      map[string]*safetyPod
	uids      []string        // the keys of pods, sorted (sortedUIDs)
	cs        safetyCS        // the critical section being judged (newCS)
	fullnames map[string]bool // full names of every pod seen (MirrorTerminating is read for each)
	// sortedFullnames are fullnames' keys, sorted (noteFullName).
	sortedFullnames []string
	// synced: a SyncKnownPods took effect (SPEC §1.12 step 1); viewSynced is
	// podsSynced as the view last showed it.
	synced, viewSynced bool
	syncedAt           time.Duration
	// unbound are the UpdatePod and SyncKnownPods calls not yet matched
	// with their critical section, by goroutine.
	unbound     map[string]*safetyClientCall
	calls       map[int]*safetyClientCall // bound, awaiting their return, by ID
	completions map[int]*safetyCompletion // by completion ID
	inCS        bool
	csFired     []safetyFired // completions fired in the current critical section
	settled     bool

	violations []Violation
	reported   map[string]bool
}

func newSafetyOracle() *safetyOracle {
	return &safetyOracle{viewOf: (*World).safetyView, pods: map[string]*safetyPod{}, fullnames: map[string]bool{},
		unbound: map[string]*safetyClientCall{}, calls: map[int]*safetyClientCall{}, completions: map[int]*safetyCompletion{},
		reported: map[string]bool{}}
}

// Observe implements Observer: the view is read only at LockReleasing, when
// the calling goroutine holds the pod lock.
func (o *safetyOracle) Observe(w *World, ev Event) {
	var v safetyView
	if ev.Kind == LockReleasing {
		v = o.viewOf(w)
	}
	o.step(v, ev)
}

// Finish implements Oracle: every violation found, in the order found.
func (o *safetyOracle) Finish(*World, error) []Violation { return o.violations }

// step consumes one event; v is read only for LockReleasing.
func (o *safetyOracle) step(v safetyView, ev Event) {
	if o.settled {
		return
	}
	switch ev.Kind {
	case ClientCall:
		o.onCall(ev)
	case ClientReturn:
		o.onReturn(ev)
	case LockAcquired:
		o.inCS, o.csFired = true, nil
	case LockReleasing:
		o.release(v, ev)
	case CallbackBegin:
		if b, ok := ev.Input.(model.SyncBegin); ok {
			o.begin(b, ev)
		}
	case CallbackEnd:
		if e, ok := ev.Input.(model.SyncEnd); ok {
			o.end(e, ev)
		}
	case Fired:
		o.fired(ev)
	case Settled:
		o.settle(ev)
		o.settled = true
	}
}

// fired records a cancellation, or checks a kill completion (at the end of
// the critical section that fires it, when its effect is visible).
func (o *safetyOracle) fired(ev Event) {
	switch f := ev.Input.(type) {
	case model.CancelFired:
		o.track(f.UID).lastCancel = ev.Seq
	case model.CompletionFired:
		o.track(f.UID)
		fc := safetyFired{id: f.ID, uid: f.UID, seq: ev.Seq, at: ev.At}
		if o.inCS {
			o.csFired = append(o.csFired, fc)
			return
		}
		o.checkCompletionFired(fc, ev, nil)
	}
}

// track returns the per-UID state, creating it on first mention.
func (o *safetyOracle) track(uid string) *safetyPod {
	t := o.pods[uid]
	if t == nil {
		t = &safetyPod{uid: uid}
		o.pods[uid] = t
		// A new array, never an insert in place: callers may be ranging
		// over the old one.
		i, _ := slices.BinarySearch(o.uids, uid)
		o.uids = slices.Insert(slices.Clip(o.uids), i, uid)
	}
	return t
}

// noteFullName adds a full name to fullnames and, kept sorted, to
// sortedFullnames (a new array each time, as for uids).
func (o *safetyOracle) noteFullName(f string) {
	if o.fullnames[f] {
		return
	}
	o.fullnames[f] = true
	i, _ := slices.BinarySearch(o.sortedFullnames, f)
	o.sortedFullnames = slices.Insert(slices.Clip(o.sortedFullnames), i, f)
}

// sortedUIDs lists every UID mentioned so far, sorted, so that the order of
// checks (and of messages) never depends on map order. It is read at every
// pod-lock release, so it is kept rather than sorted each time; callers
// must not modify it.
func (o *safetyOracle) sortedUIDs() []string { return o.uids }

// report records a violation once per key: a broken state persists over
// many events, and a trace needs the first one.
func (o *safetyOracle) report(inv, key string, ev Event, subject, format string, args ...any) {
	k := inv + "/" + key
	if o.reported[k] {
		return
	}
	o.reported[k] = true
	msg := fmt.Sprintf("%s: %s (%s)", subject, fmt.Sprintf(format, args...), inv)
	o.violations = append(o.violations, Violation{Oracle: "safety", Invariant: inv, Message: msg, At: ev.At, Seq: ev.Seq})
}

// subject names an incarnation and its state for a message: "pod a (T)",
// "pod a#2 (S)" for the second incarnation of a reused UID.
func (o *safetyOracle) subject(inc *safetyInc) string {
	return fmt.Sprintf("%s (%s)", inc.name(), inc.state())
}

// unknownSubject names a UID without a record.
func (o *safetyOracle) unknownSubject(uid string) string {
	if o.synced {
		return "pod " + uid + " (U1)"
	}
	return "pod " + uid + " (U0)"
}

// safetyClamp1 is the SPEC §1.7 floor: an effective grace is at least 1 second.
func safetyClamp1(g int64) int64 { return max(g, 1) }
