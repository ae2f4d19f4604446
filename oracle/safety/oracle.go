// Package safety is the step-invariant oracle: SPEC §3.1 S1–S19 checked
// online, at every callback and every release of the pod lock, from the
// event stream and the query answers a caller could read at that instant.
package safety

import (
	"fmt"
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/model/ops"
	"github.com/podsim/podsim/oracle"
)

// The safety oracle checks the step invariants S1–S19 of docs/spec.md §3.1 on
// the World's event stream, online: on every callback (CallbackBegin,
// CallbackEnd) and at every release of the pod lock (LockReleasing), where
// it reads every query's answer through a safetyView. It is written from the
// SPEC, independently of package model's state machine (it uses only the
// vocabulary of model/ops), so that a bug shared by the workers and the
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

// safetyView is what the oracle reads of the pod workers at the end of a
// critical section: what the public query methods returned when the target
// called them there (SPEC §1.14), recorded on the LockReleasing event
// (history.Probe); tests script it.
type safetyView interface {
	KnownUIDs() []string
	Answers(uid types.UID) oracle.Answers
	Synced() bool
	MirrorTerminating(fullname string) bool
}

// New returns the step-invariant oracle (SPEC §3.1 S1–S19).
func New() oracle.Oracle { return newSafetyOracle() }

// NewFullPass returns the same oracle judging every tracked UID at every
// release of the pod lock, not only those whose judgement can have changed
// (release): the definition the incremental pass must agree with, for the
// tests that compare them.
func NewFullPass() oracle.Oracle {
	o := newSafetyOracle()
	o.fullPass = true
	return o
}

// NewCarelessSkip returns the oracle skipping SyncKnownPods releases too
// carelessly (repeatMemo.careless): a wrong skip, for the test that shows
// the comparison with NewFullPass catches one.
func NewCarelessSkip() oracle.Oracle {
	o := newSafetyOracle()
	o.repeat.careless = true
	return o
}

// RepeatsSkipped is how many repeated SyncKnownPods releases a safety
// oracle of New skipped so far (0 for any other oracle), for the tests
// that show the comparison with NewFullPass covered some.
func RepeatsSkipped(o oracle.Oracle) int {
	if s, ok := o.(*safetyOracle); ok {
		return s.repeat.skipped
	}
	return 0
}

// safetyOracle is the online checker of S1–S19.
type safetyOracle struct {
	pods   *history.Lookup[string, *safetyPod]
	uids   []string     // the keys of pods, sorted (sortedUIDs)
	tracks []*safetyPod // pods' values, in the order of uids
	// strs and podArrays are where uids, tracks, sortedFullnames and the
	// SyncKnownPods calls' kept lists are made: copied on write, as others
	// hold them while they change; Reset takes them back.
	strs      history.Arrays[string]
	podArrays history.Arrays[*safetyPod]
	cs        safetyCS // the critical section being judged (newCS)
	// sortedFullnames are the full names of every pod seen, sorted
	// (noteFullName; MirrorTerminating is read for each); nameBuf is
	// noteFullName's buffer.
	sortedFullnames []string
	nameBuf         []byte
	staticBuf       []*safetyInc // checkMirror's buffer
	// statics counts the records of the run that turned static (a static
	// pod's update accepted): checkMirror looks for them only when some did.
	statics int
	// synced: a SyncKnownPods took effect (SPEC §1.12 step 1); viewSynced is
	// podsSynced as the view last showed it.
	synced, viewSynced bool
	syncedAt           time.Duration
	// unbound are the UpdatePod and SyncKnownPods calls not yet matched
	// with their critical section, by goroutine.
	unbound     history.Few[string, *safetyClientCall]
	calls       history.Few[int, *safetyClientCall] // bound, awaiting their return, by ID
	freeCalls   []*safetyClientCall                 // records of calls done, for the next (newClientCall)
	completions map[int]*safetyCompletion           // by completion ID
	// callRecs and requests are where the callbacks' and the termination
	// requests' records come from (newCall, newRequest), kept by Reset.
	callRecs history.Slab[safetyCall]
	requests history.Slab[safetyRequest]
	// completionRecs are where the kill completions' records come from
	// (deliver), kept by Reset.
	completionRecs history.Slab[safetyCompletion]
	// freePods and freeIncs are the UID records and incarnations of the
	// runs before Reset, for track and newInc to empty and reuse.
	freePods []*safetyPod
	freeIncs []*safetyInc
	// tracked is the UID record track returned last: most calls of track
	// are for the UID of the call before (a call, its critical section,
	// its callback) and are answered without hashing the UID. pods only
	// grows in a run, so it is never stale; Reset empties it.
	tracked *safetyPod
	open    []*safetyCompletion // the completions not fired yet, by ID ascending
	inCS    bool
	csFired []safetyFired // completions fired in the current critical section
	settled bool

	// The per-release pass (track.go): dirty lists the UIDs to judge at
	// the next release (safetyPod.dirty), allDirty has every one judged;
	// judged is the buffer of the UIDs judged; fullPass judges every UID
	// at every release (NewFullPass).
	dirty    []*safetyPod
	allDirty bool
	judged   []*safetyPod
	// knownOf is the probe of the last release that read one (readProbe;
	// Reset: none); knownBuf is readProbe's list of its known UIDs.
	knownOf  *history.Probe
	knownBuf []string
	fullPass bool
	// repeat follows the stream to skip repeated SyncKnownPods releases
	// (repeat.go); a full pass skips none.
	repeat repeatMemo

	violations []history.Violation
	reported   map[string]bool
}

func newSafetyOracle() *safetyOracle {
	return &safetyOracle{pods: history.NewLookup[string, *safetyPod](),
		completions: map[int]*safetyCompletion{},
		reported:    map[string]bool{}}
}

// Reset implements oracle.Resetter: o as its constructor (New, NewFullPass
// or NewCarelessSkip) makes it, its maps and buffers emptied and kept.
func (o *safetyOracle) Reset() {
	// Only pods and tracks hold a UID's record, and only its record holds
	// its incarnations: they are reused, emptied, by the next run.
	for _, t := range o.tracks {
		o.freePods = append(o.freePods, t)
		o.freeIncs = append(o.freeIncs, t.past...)
		if t.cur != nil {
			o.freeIncs = append(o.freeIncs, t.cur)
		}
	}
	o.pods.Reset()
	o.unbound.Reset()
	o.calls.Reset()
	clear(o.completions)
	clear(o.reported)
	clear(o.open)
	clear(o.dirty)
	clear(o.judged)
	clear(o.cs.ans)
	o.callRecs.Reset()
	o.requests.Reset()
	o.completionRecs.Reset()
	o.strs.Reset()
	o.podArrays.Reset()
	// uids, tracks and sortedFullnames are copied on write (others hold
	// them): their memory is strs's and podArrays's. The critical section's
	// answers and purges are kept (newCS clears them at every release).
	*o = safetyOracle{pods: o.pods, nameBuf: o.nameBuf[:0], unbound: o.unbound, calls: o.calls, freeCalls: o.freeCalls, freePods: o.freePods, freeIncs: o.freeIncs, completions: o.completions,
		open: o.open[:0], csFired: o.csFired[:0], dirty: o.dirty[:0], judged: o.judged[:0], knownBuf: o.knownBuf[:0],
		reported: o.reported, fullPass: o.fullPass, callRecs: o.callRecs, requests: o.requests, repeat: repeatMemo{careless: o.repeat.careless},
		cs: safetyCS{purged: o.cs.purged, ans: o.cs.ans[:0]}, strs: o.strs, podArrays: o.podArrays, completionRecs: o.completionRecs}
}

// Observe implements Observer: the query answers are read only at
// LockReleasing, from the event's Probe. A target that records a release
// without one cannot be judged on its answers: the oracle says so once and
// takes every UID for unknown. A release goes through step; every other
// event is judged here, one call fewer.
func (o *safetyOracle) Observe(_ oracle.View, ev *history.Event) {
	if ev.Kind == history.LockReleasing {
		var w safetyView = ev.Probe
		if ev.Probe == nil {
			o.report("probe", "missing", ev, "pod workers", "the release of the pod lock at %v carries no query answers", ev.At)
			w = &history.Probe{PodsSynced: o.viewSynced}
		}
		o.step(w, ev)
		return
	}
	if o.settled {
		return
	}
	if o.repeat.stage != 0 {
		o.repeat.follow(ev) // at stage 0 it changes nothing (repeatMemo.follow)
	}
	switch ev.Kind {
	case history.ClientCall:
		o.onCall(ev)
	case history.ClientReturn:
		o.onReturn(ev)
	case history.LockAcquired:
		o.inCS, o.csFired = true, o.csFired[:0]
	case history.CallbackBegin:
		if b, ok := ev.Input.(ops.SyncBegin); ok {
			o.begin(b, ev)
		}
	case history.CallbackEnd:
		if e, ok := ev.Input.(ops.SyncEnd); ok {
			o.end(e, ev)
		}
	case history.Fired:
		o.fired(ev)
	case history.Settled:
		o.settle(ev)
		o.settled = true
	}
}

// Finish implements Oracle: every violation found, in the order found.
func (o *safetyOracle) Finish(oracle.View, error) []history.Violation { return o.violations }

// step consumes one event; v is read only for LockReleasing (any other
// event is Observe's).
func (o *safetyOracle) step(v safetyView, ev *history.Event) {
	if ev.Kind != history.LockReleasing {
		o.Observe(nil, ev)
		return
	}
	if o.settled {
		return
	}
	c, _ := o.unbound.Get(ev.Goroutine) // the call this section serves, if any
	if o.skipRepeat(c, ev) {
		return
	}
	o.release(v, c, ev)
	o.released(c, ev)
}

// fired records a cancellation, or checks a kill completion (at the end of
// the critical section that fires it, when its effect is visible).
func (o *safetyOracle) fired(ev *history.Event) {
	switch f := ev.Input.(type) {
	case ops.CancelFired:
		o.track(f.UID).lastCancel = ev.Seq
	case ops.CompletionFired:
		o.markDirty(o.track(f.UID))
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
	if t := o.tracked; t != nil && t.uid == uid {
		return t
	}
	t := o.pod(uid)
	if t == nil {
		t = history.Reuse(&o.freePods)
		*t = safetyPod{uid: uid}
		t.workerCS, t.past = t.firstCS[:0], t.firstPast[:0]
		o.pods.Set(uid, t)
		o.markDirty(t)
		// A new array, never an insert in place: callers may be ranging
		// over the old one.
		i, _ := history.Search(o.uids, uid)
		o.uids = o.strs.Insert(o.uids, i, uid)
		o.tracks = o.podArrays.Insert(o.tracks, i, t)
	}
	o.tracked = t
	return t
}

// pod is uid's record, nil before its first mention.
func (o *safetyOracle) pod(uid string) *safetyPod {
	t, _ := o.pods.Get(uid)
	return t
}

// fullNameOf is noteFullName(p) for an update of t's UID: the name and
// namespace of t's last update's pod, when p has them again (most updates
// of a UID name the same pod), answer without building the name or
// searching sortedFullnames, where noteFullName put it then.
func (o *safetyOracle) fullNameOf(t *safetyPod, p *ops.Pod) string {
	if t.fullname != "" && p.Name == t.podName && p.Namespace == t.podNamespace {
		return t.fullname
	}
	t.fullname, t.podName, t.podNamespace = o.noteFullName(p), p.Name, p.Namespace
	return t.fullname
}

// noteFullName adds p's full name, kept sorted, to sortedFullnames (a new
// array each time, as for uids) and returns it: the string is built only
// the first time the name is seen.
func (o *safetyOracle) noteFullName(p *ops.Pod) string {
	o.nameBuf = p.AppendFullName(o.nameBuf[:0])
	i, found := slices.BinarySearchFunc(o.sortedFullnames, o.nameBuf, func(f string, b []byte) int {
		switch { // comparisons with string(b) copy nothing
		case f < string(b):
			return -1
		case f > string(b):
			return 1
		}
		return 0
	})
	if found {
		return o.sortedFullnames[i]
	}
	f := string(o.nameBuf)
	o.sortedFullnames = o.strs.Insert(o.sortedFullnames, i, f)
	return f
}

// sortedUIDs lists every UID mentioned so far, sorted, so that the order of
// checks (and of messages) never depends on map order. It is read at every
// pod-lock release, so it is kept rather than sorted each time; callers
// must not modify it.
func (o *safetyOracle) sortedUIDs() []string { return o.uids }

// report records a violation once per key: a broken state persists over
// many events, and a trace needs the first one.
func (o *safetyOracle) report(inv, key string, ev *history.Event, subject, format string, args ...any) {
	k := inv + "/" + key
	if o.reported[k] {
		return
	}
	o.reported[k] = true
	msg := fmt.Sprintf("%s: %s (%s)", subject, fmt.Sprintf(format, args...), inv)
	o.violations = append(o.violations, history.Violation{Oracle: "safety", Invariant: inv, Message: msg, At: ev.At, Seq: ev.Seq})
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
