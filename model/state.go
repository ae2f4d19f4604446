package model

import (
	"slices"

	"github.com/podsim/podsim/model/deviation"
	"github.com/podsim/podsim/model/ops"
)

// Delivery is the content of an update waiting in, or taken from, the
// pending slot (SPEC §1.6): what the next sync call will be given.
//
// Fields are ordered widest first here and in PodContent, Flight and
// Record, so that no padding is wasted: rules copy records (200 bytes, not
// 248) into and out of states.
type Delivery struct {
	Pod  PodContent
	Type ops.UpdateType
	// RuntimeOnly: only a RunningPod is known, so the call is the runtime
	// variant SyncTerminatingRuntimePod.
	RuntimeOnly bool
	// Graced: the update carries a grace for SyncTerminatingPod (it went
	// through UpdatePod's terminating branch, or is a replay of one that
	// did). Tracked only with deviation.GC (always false otherwise).
	Graced bool
}

// PodContent is a Pod without its identity (UID, name and namespace, which
// the record holds): what a record keeps of each pod it was given.
type PodContent struct {
	Version           int
	DeletionGrace     int64
	SpecGrace         int64
	Static            bool
	DeletionTimestamp bool
	HasDeletionGrace  bool
	Phase             ops.Phase
}

func contentOf(p *ops.Pod) PodContent {
	return PodContent{Version: p.Version, Static: p.Static, DeletionTimestamp: p.DeletionTimestamp,
		HasDeletionGrace: p.HasDeletionGrace, Phase: p.Phase, DeletionGrace: p.DeletionGrace, SpecGrace: p.SpecGrace}
}

// Stage is where the worker is in one pass of its loop (SPEC §1.8).
type Stage uint8

// Stages of a pass. The hops Idle→Taken, Taken→Idle (status read failed) and
// Returned→Idle happen under the pod lock but are not recorded; Taken→Begun
// and Begun→Returned are the recorded callback entry and return.
const (
	Idle     Stage = iota
	Taken          // startPodSync took the pending update
	Begun          // the callback was entered
	Returned       // the callback returned; its outcome is not applied yet
)

func (s Stage) String() string { return [...]string{"idle", "taken", "begun", "returned"}[s] }

// Flight is the worker's current pass; the zero value is an idle worker.
type Flight struct {
	Content Delivery
	// TakeGrace and AckGrace are the record's grace when the update was taken
	// and when termination was acknowledged: SyncTerminatingPod may be given
	// either (see stepSyncBegin).
	TakeGrace int64
	AckGrace  int64
	Stage     Stage
	Fn        ops.SyncFn
	Acked     bool
	// Canceled: this pass's context was cancelled (or must be, see Due).
	Canceled   bool
	Outcome    ops.Outcome
	IsTerminal bool
}

// Record is the per-UID podSyncStatus of SPEC §1.1, reduced to what the
// behaviour depends on. Times become booleans (milestones); the CompletedCh
// list lives beside the records in the State so that Record stays
// comparable with ==.
type Record struct {
	UID      string
	FullName string
	// Grace is the effective grace period, 0 until termination is requested.
	Grace int64

	Pending Delivery // if HasPending
	// Active (if HasActive) is activeUpdate: the merged last consumed
	// content, the source of replays (always of type sync).
	Active Delivery

	Flight Flight

	// Static is decided by the pod of the first sighting (the wait list
	// entry is made then, SPEC §1.4 step 8).
	Static bool

	Started       bool // startedAt set
	TermRequested bool // terminatingAt set
	Acknowledged  bool // startedTerminating
	Terminated    bool // terminatedAt set
	Finished      bool

	Deleted          bool
	Evicted          bool
	RestartRequested bool
	ObservedRuntime  bool

	HasPending bool
	HasActive  bool
}

// workType is WorkType() of SPEC §1.2, computed from the record when an
// update is taken: this is what makes a kill sticky (§1.6).
func (r Record) workType() ops.WorkType {
	switch {
	case r.Terminated:
		return ops.TerminatedWork
	case r.TermRequested:
		return ops.TerminatingWork
	}
	return ops.SyncWork
}

// StateName is the state of SPEC §1.2 (P, S, TR, T, D or F).
func (r Record) StateName() string {
	switch {
	case r.Finished:
		return "F"
	case r.Terminated:
		return "D"
	case r.Acknowledged:
		return "T"
	case r.TermRequested:
		return "TR"
	case r.Started:
		return "S"
	}
	return "P"
}

// knownRealPod is the newest real pod spec: pending first, else active
// (SPEC §1.4 step 3).
func (r Record) knownRealPod() (PodContent, bool) {
	if r.HasPending && !r.Pending.RuntimeOnly {
		return r.Pending.Pod, true
	}
	if r.HasActive && !r.Active.RuntimeOnly {
		return r.Active.Pod, true
	}
	return PodContent{}, false
}

// replay is requeueLastPodUpdate (SPEC §1.6): the worker's own next pass,
// only if nothing is pending and something was consumed before.
func (r *Record) replay() {
	if r.HasPending || !r.HasActive {
		return
	}
	r.HasPending, r.Pending = true, Delivery{Type: ops.Sync, Pod: r.Active.Pod, RuntimeOnly: r.Active.RuntimeOnly, Graced: r.Active.Graced}
}

// mergeActive is mergeLastUpdate (SPEC §1.6): a RunningPod never hides a
// real pod spec.
//
// Kill options accumulate (deviation.GC's Graced): once a consumed update carried
// a grace, replays carry one.
func (r *Record) mergeActive(d Delivery) {
	graced := d.Graced || (r.HasActive && r.Active.Graced)
	if d.RuntimeOnly && r.HasActive && !r.Active.RuntimeOnly {
		r.Active.Graced = graced
		return
	}
	r.HasActive, r.Active = true, Delivery{Type: ops.Sync, Pod: d.Pod, RuntimeOnly: d.RuntimeOnly, Graced: graced}
}

// Obligation is an effect the implementation performs inside the same pod
// lock critical section as the step that caused it: firing a kill's
// completion (ID > 0) or cancelling the in-flight sync (ID == 0).
type Obligation struct {
	UID string
	ID  int
}

// State is the model state of one partition (or of the whole object): the
// records plus the global fields of SPEC §1.1. States are values: Step
// never modifies its argument. The rules read and write it through small
// helpers (storage.go), which keep every collection a sorted slice shared
// copy-on-write between states; treat the exported fields as read-only.
type State struct {
	PodsSynced bool
	// recs are the records, sorted by UID (read with record, write with put).
	recs []Record
	// notify is notifyPostTerminating: completion IDs per UID waiting for
	// the pod to become terminated, in arrival order (notifyIDs, addNotify).
	notify []notifyEntry
	// StartedStatic and WaitingStatic are startedStaticPodsByFullname and
	// waitingToStartStaticPodsByFullname (SPEC §1.10), sorted by full name.
	StartedStatic []StaticStarted
	WaitingStatic []StaticWaiting
	// Due are obligations not yet observed, sorted; while any is due no
	// other step under the pod lock may happen.
	Due []Obligation
	// MayCancel lists UIDs whose idle context may be cancelled right now
	// (the implementation cancels a context that exists; the model cannot
	// tell whether one does).
	MayCancel []string
	// Fired are the completion IDs fired so far, sorted (for KillPodNowDone).
	Fired []int

	// Records and Notify are map views of the records and of notify, filled
	// in on the states that Step, Next, Closure and NewState return (for
	// tests and tools). They are read-only (a step that leaves the records
	// alone shares its input's); the rules never read them.
	Records map[string]Record
	Notify  map[string][]int

	// dev are the deviations switched on (package deviation): constant
	// for a state's whole line, so not part of equal or hash.
	dev   deviation.Set
	own   owned        // copy-on-write marks (storage.go)
	arena *recordArena // where closure lends record arrays (storage.go)
}

// NewState is the object right after kubelet start: nothing known, not synced.
func NewState() State { return State{}.withViews() }

// InitialState is the object right after kubelet start, with deviations
// switched on (for the checker: the first state of every part).
func InitialState(dev deviation.Set) State { return State{dev: dev} }

// NewStateWith is NewState with deviations switched on.
func NewStateWith(dev deviation.Set) State { return InitialState(dev).withViews() }

// Deviations is the set the state was started with.
func (s *State) Deviations() deviation.Set { return s.dev }

// addDue records an obligation, keeping Due sorted.
func (s *State) addDue(uid string, id int) {
	o := Obligation{UID: uid, ID: id}
	if i, found := slices.BinarySearchFunc(s.Due, o, compareObligation); !found {
		s.insertDue(i, o)
	}
}

func compareObligation(a, b Obligation) int {
	if a.UID != b.UID {
		if a.UID < b.UID {
			return -1
		}
		return 1
	}
	return a.ID - b.ID
}

// fireAll makes every completion waiting on uid due now: the pod reached a
// state in which its kills are complete (every finalisation path, §1.17).
func (s *State) fireAll(uid string) {
	for _, id := range s.notifyIDs(uid) {
		s.addDue(uid, id)
	}
	s.dropNotify(uid)
}

// settleCompletion handles the CompletedCh of an update that does not reach
// the terminating branch of SPEC §1.4 step 7: it waits for termination if the
// pod is terminating, else the kill is moot or already complete and fires at
// once (P/S, D, F, and — our fix of §1.17-1 — dropped updates).
func (s *State) settleCompletion(uid string, id int) {
	if id == 0 {
		return
	}
	if r, ok := s.recordRef(uid); ok && r.TermRequested && !r.Terminated {
		s.addNotify(uid, id)
		return
	}
	s.addDue(uid, id)
}

// leaveStatic clears uid from the static maps: on start (waiting list), and
// when it finishes or is purged (both, SPEC §1.10).
// leaveStatic gives up uid's started entry (on finish, unstarted cleanup
// or purge). Its wait-list entries stay: the list is pruned lazily, when
// scanned (staticStart, SPEC §1.10).
func (s *State) leaveStatic(uid, fullname string) {
	if started, ok := s.startedStatic(fullname); ok && started == uid {
		s.clearStartedStatic(fullname)
	}
}

// joinWaiting appends uid to fullname's wait list (a UID re-created after
// a purge may then stand in it twice; the first valid entry counts).
func (s *State) joinWaiting(uid, fullname string) {
	s.appendWaiting(fullname, uid)
}

// remove deletes a record and everything kept beside it.
func (s *State) remove(r Record) {
	s.leaveStatic(r.UID, r.FullName)
	s.deleteRecord(r.UID)
	s.dropNotify(r.UID)
}
