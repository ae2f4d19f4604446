package safety

import (
	"fmt"
	"time"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/model/ops"
	"github.com/podsim/podsim/oracle"
)

// What the safety oracle keeps about each UID: its incarnations (one record
// each, creation to purge), their termination requests, callbacks and the
// client calls that named it, and the release of the pod lock in hand. The
// code that fills them in as the events come is in track.go.
// safetyPod is everything the safety oracle keeps about one UID, across its
// incarnations.
type safetyPod struct {
	uid  string
	cur  *safetyInc   // nil while the UID has no record
	past []*safetyInc // purged incarnations, oldest first
	// inFlight is the callback running for the UID, whatever its
	// incarnation (S1 holds across incarnations).
	inFlight   *safetyCall
	lastCancel int64 // seq of the last CancelFired for the UID
	// lingering bounds the workers of purged, unfinished incarnations that
	// may still take the pod lock once on their way out.
	lingering int
	// workerCS are the worker's critical sections (seq) since the UID's
	// last callback ended or its incarnation began.
	workerCS []int64
	firstCS  [8]int64 // the array workerCS begins in (track)
	// firstPast is the array past begins in (track): most UIDs are
	// purged once or twice in a run.
	firstPast [2]*safetyInc
	lastEnd   int64
	// firstArrival is the creation of the UID's earliest static
	// incarnation: its wait-list entry may outlive a purge (SPEC §1.10).
	firstArrival int64
	// The per-release pass (release): the answers and Known last read
	// (seen: read once), and dirty: judge the UID at the next release.
	seen, seenKnown, dirty bool
	seenAns                oracle.Answers
	// fullname is the full name of the pod of the UID's last update, whose
	// name and namespace are podName and podNamespace (fullNameOf).
	fullname, podName, podNamespace string
	// csIdx is the UID's index in safetyCS.uids as the walk csRead of
	// safetyCS.reads left it (safetyCS.of), where its answers are.
	csIdx, csRead int
}

// safetyInc is one incarnation of a UID: one record, from creation to purge.
type safetyInc struct {
	uid       string
	n         int // 1 for the UID's first record, 2 after its first purge…
	created   int64
	createdAt time.Duration
	// waiter: created by a static pod's update, so it joined the full
	// name's wait list (SPEC §1.4 step 8); static: a static pod was accepted.
	waiter, static bool
	fullname       string
	// shortcut: created already terminated (kubelet-restart shortcut).
	shortcut bool

	ans    oracle.Answers // at the last release of the pod lock
	hasAns bool
	// latest are the answers of the release being processed (ans until
	// it is done), for messages.
	latest oracle.Answers
	frozen oracle.Answers // when first seen finished (S6)

	// Milestones: seq of the release that first showed the answer.
	trSeq, ackSeq, noRunSeq, termSeq, finSeq int64
	ackAt, noRunAt, finAt                    time.Duration

	req         *safetyRequest // the first termination request
	natural     *safetyRequest // a SyncPod returned isTerminal
	updAfterReq *safetyRequest // the first create/update/sync after it (S13)
	// Flags of SPEC §1.1 no query shows, derived from the updates.
	evicted, deleted, restart, observedRuntime, realPod bool
	specGrace                                           int64 // of the newest real pod
	deletionGrace                                       int64 // of the newest real pod, if hasDeletionGrace
	hasDeletionGrace                                    bool
	versions                                            []safetyMark // accepted real-pod versions
	graces                                              []safetyMark // effective-grace inputs (S11)
	workerSeen                                          bool         // its worker took the pod lock
	// triggers are what may wake the worker for another callback: accepted
	// updates, orphan replays, phase-transition replays (seq); ignored are
	// the runtime kills a terminated pod ignored (S17).
	triggers []int64
	ignored  []*safetyRequest

	calls    int // callbacks begun
	starts   int // SyncPod or SyncTerminatingPod begun (S15 "started")
	phase    safetyPhase
	last     *safetyCall
	final    [ops.SyncTerminatedPod + 1]*safetyCall // the last call of each callback, by SyncFn (S12)
	purgedAt time.Duration

	// The arrays versions, graces and triggers begin in (newInc): most
	// incarnations need no more, so no allocation for each growth.
	firstVersions, firstGraces [4]safetyMark
	firstTriggers              [4]int64
}

// newInc is t's incarnation n, created at ev, its lists in its own
// arrays: a record of the runs before Reset emptied (freeIncs), or a new
// one.
func (o *safetyOracle) newInc(t *safetyPod, n int, ev *history.Event) *safetyInc {
	inc := history.Reuse(&o.freeIncs)
	*inc = safetyInc{uid: t.uid, n: n, created: ev.Seq, createdAt: ev.At}
	inc.versions, inc.graces, inc.triggers = inc.firstVersions[:0], inc.firstGraces[:0], inc.firstTriggers[:0]
	return inc
}

// safetyRequest is a termination request, or the first update after one.
type safetyRequest struct {
	seq    int64
	at     time.Duration
	what   safetyWhat
	cancel bool // it must cancel an in-flight SyncPod (not isTerminal)
}

// safetyMark is a value that took effect at a critical section.
type safetyMark struct {
	seq int64
	v   int64
}

// safetyCall is one callback.
type safetyCall struct {
	fn               ops.SyncFn
	inc              *safetyInc
	seq              int64
	at               time.Duration
	version          int
	grace            int64
	takeMin, takeMax int64 // the worker's critical section that took its update
	ackMin, ackMax   int64 // …and the one that acknowledged termination
	ended            bool
	outcome          ops.Outcome
	// S12: whether the version was the newest delivered before the take.
	versionChecked, versionOK bool
	wantVersion               int64
}

// newCall returns a zero safetyCall from the oracle's slab (callRecs).
func (o *safetyOracle) newCall() *safetyCall { return o.callRecs.Next() }

// newRequest returns a record holding r from the oracle's slab (requests).
func (o *safetyOracle) newRequest(r safetyRequest) *safetyRequest {
	p := o.requests.Next()
	*p = r
	return p
}

// safetyClientCall is an UpdatePod or SyncKnownPods call.
type safetyClientCall struct {
	id       int
	in       ops.Input
	at       time.Duration
	returned bool
	out      ops.Output
	purged   []string // SyncKnownPods: UIDs purged by it, sorted
	kept     []string // …and the records left after it, sorted
}

// safetyCS is one release of the pod lock being processed.
type safetyCS struct {
	ev     *history.Event // the release (read only while it is judged: the run reuses it)
	v      safetyView
	uids   []string              // the UIDs tracked when the answers were read, sorted
	ans    []oracle.Answers      // their answers, in the order of uids
	purged map[string]*safetyInc // not yet judged
	// reads counts the walks that read answers into uids and ans; each
	// stamps the UIDs it read with it (noteAnswers).
	reads int
}

// answers is uid's answers at the end of the critical section: the view's
// for a UID tracked when they were read, the zero value for one tracked
// later in the release. Not inlined: of, which inlines in its callers,
// calls it only when its short path fails.
//
//go:noinline
func (cs *safetyCS) answers(uid string) oracle.Answers {
	i, ok := history.Search(cs.uids, uid)
	if !ok {
		return oracle.Answers{}
	}
	return cs.ans[i]
}

// of is t's answers at the end of the critical section, as answers(t.uid)
// returns them: at t.csIdx when the last walk read t (it stamped t with
// its number), without a search or a comparison of UIDs; a UID tracked
// since has no answers in cs.
func (cs *safetyCS) of(t *safetyPod) oracle.Answers {
	if t.csRead == cs.reads && t.csRead != 0 {
		return cs.ans[t.csIdx]
	}
	return cs.answers(t.uid)
}

// key identifies the incarnation in report keys.
func (inc *safetyInc) key() string { return fmt.Sprintf("%s#%d", inc.uid, inc.n) }

func (inc *safetyInc) name() string {
	if inc.n > 1 {
		return fmt.Sprintf("pod %s#%d", inc.uid, inc.n)
	}
	return "pod " + inc.uid
}

// state is the SPEC §1.2 state the last answers show.
func (inc *safetyInc) state() string { return oracle.StateLetter(inc.latest, inc.starts > 0) }
