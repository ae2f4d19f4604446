package model

import (
	"maps"
	"slices"
)

// Delivery is the content of an update waiting in, or taken from, the
// pending slot (SPEC §1.6): what the next sync call will be given.
type Delivery struct {
	Type UpdateType
	Pod  Pod
	// RuntimeOnly: only a RunningPod is known, so the call is the runtime
	// variant SyncTerminatingRuntimePod.
	RuntimeOnly bool
}

// Stage is where the worker is in one pass of its loop (SPEC §1.8).
type Stage int

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
	Stage   Stage
	Fn      SyncFn
	Content Delivery
	// TakeGrace and AckGrace are the record's grace when the update was taken
	// and when termination was acknowledged: SyncTerminatingPod may be given
	// either (see stepSyncBegin).
	TakeGrace int64
	AckGrace  int64
	Acked     bool
	// Canceled: this pass's context was cancelled (or must be, see Due).
	Canceled   bool
	Outcome    Outcome
	IsTerminal bool
}

// Record is the per-UID podSyncStatus of SPEC §1.1, reduced to what the
// behaviour depends on. Times become booleans (milestones); the CompletedCh
// list lives in State.Notify so that Record stays comparable with ==.
type Record struct {
	UID      string
	FullName string
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
	// Grace is the effective grace period, 0 until termination is requested.
	Grace int64

	HasPending bool
	Pending    Delivery
	// HasActive/Active is activeUpdate: the merged last consumed content,
	// the source of replays (always of type sync).
	HasActive bool
	Active    Delivery

	Flight Flight
}

// workType is WorkType() of SPEC §1.2, computed from the record when an
// update is taken: this is what makes a kill sticky (§1.6).
func (r Record) workType() WorkType {
	switch {
	case r.Terminated:
		return TerminatedWork
	case r.TermRequested:
		return TerminatingWork
	}
	return SyncWork
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
func (r Record) knownRealPod() (Pod, bool) {
	if r.HasPending && !r.Pending.RuntimeOnly {
		return r.Pending.Pod, true
	}
	if r.HasActive && !r.Active.RuntimeOnly {
		return r.Active.Pod, true
	}
	return Pod{}, false
}

// replay is requeueLastPodUpdate (SPEC §1.6): the worker's own next pass,
// only if nothing is pending and something was consumed before.
func (r *Record) replay() {
	if r.HasPending || !r.HasActive {
		return
	}
	r.HasPending, r.Pending = true, Delivery{Type: Sync, Pod: r.Active.Pod, RuntimeOnly: r.Active.RuntimeOnly}
}

// mergeActive is mergeLastUpdate (SPEC §1.6): a RunningPod never hides a
// real pod spec.
func (r *Record) mergeActive(d Delivery) {
	if d.RuntimeOnly && r.HasActive && !r.Active.RuntimeOnly {
		return
	}
	r.HasActive, r.Active = true, Delivery{Type: Sync, Pod: d.Pod, RuntimeOnly: d.RuntimeOnly}
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
// never modifies its argument.
type State struct {
	PodsSynced bool
	Records    map[string]Record
	// Notify is notifyPostTerminating: completion IDs per UID waiting for
	// the pod to become terminated, in arrival order.
	Notify map[string][]int
	// StartedStatic and WaitingStatic are startedStaticPodsByFullname and
	// waitingToStartStaticPodsByFullname (SPEC §1.10).
	StartedStatic map[string]string
	WaitingStatic map[string][]string
	// Due are obligations not yet observed, sorted; while any is due no
	// other step under the pod lock may happen.
	Due []Obligation
	// MayCancel lists UIDs whose idle context may be cancelled right now
	// (the implementation cancels a context that exists; the model cannot
	// tell whether one does).
	MayCancel []string
	// Fired are the completion IDs fired so far, sorted (for KillPodNowDone).
	Fired []int
}

// NewState is the object right after kubelet start: nothing known, not synced.
func NewState() State {
	return State{
		Records:       map[string]Record{},
		Notify:        map[string][]int{},
		StartedStatic: map[string]string{},
		WaitingStatic: map[string][]string{},
	}
}

// clone deep-copies s, so that helpers may mutate the copy in place.
func (s State) clone() State {
	c := s
	c.Records = maps.Clone(s.Records)
	c.Notify = make(map[string][]int, len(s.Notify))
	for k, v := range s.Notify {
		c.Notify[k] = slices.Clone(v)
	}
	c.StartedStatic = maps.Clone(s.StartedStatic)
	c.WaitingStatic = make(map[string][]string, len(s.WaitingStatic))
	for k, v := range s.WaitingStatic {
		c.WaitingStatic[k] = slices.Clone(v)
	}
	c.Due = slices.Clone(s.Due)
	c.MayCancel = slices.Clone(s.MayCancel)
	c.Fired = slices.Clone(s.Fired)
	return c
}

// uids returns the known UIDs in sorted order.
func (s State) uids() []string { return slices.Sorted(maps.Keys(s.Records)) }

// Equal reports whether two states are the same.
func (s State) Equal(t State) bool {
	return s.PodsSynced == t.PodsSynced &&
		maps.Equal(s.Records, t.Records) &&
		maps.EqualFunc(s.Notify, t.Notify, slices.Equal) &&
		maps.Equal(s.StartedStatic, t.StartedStatic) &&
		maps.EqualFunc(s.WaitingStatic, t.WaitingStatic, slices.Equal) &&
		slices.Equal(s.Due, t.Due) &&
		slices.Equal(s.MayCancel, t.MayCancel) &&
		slices.Equal(s.Fired, t.Fired)
}

// Hash is consistent with Equal: it mixes the fields that change most, and
// combines records order-independently.
func (s State) Hash() uint64 {
	h := uint64(len(s.Due))<<8 | uint64(len(s.Fired))<<1
	if s.PodsSynced {
		h |= 1
	}
	for uid, r := range s.Records {
		h += hashRecord(uid, r)
	}
	return h
}

func hashRecord(uid string, r Record) uint64 {
	h := uint64(14695981039346656037)
	mix := func(v uint64) { h = (h ^ v) * 1099511628211 }
	for i := 0; i < len(uid); i++ {
		mix(uint64(uid[i]))
	}
	flags := []bool{r.Started, r.TermRequested, r.Acknowledged, r.Terminated, r.Finished,
		r.Deleted, r.Evicted, r.RestartRequested, r.ObservedRuntime, r.HasPending, r.HasActive}
	var bits uint64
	for i, f := range flags {
		if f {
			bits |= 1 << i
		}
	}
	mix(bits)
	mix(uint64(r.Grace))
	mix(uint64(r.Pending.Pod.Version)<<8 | uint64(r.Pending.Type))
	mix(uint64(r.Flight.Stage)<<4 | uint64(r.Flight.Fn))
	return h
}

// put stores a record.
func (s *State) put(r Record) { s.Records[r.UID] = r }

// addDue records an obligation, keeping Due sorted.
func (s *State) addDue(uid string, id int) {
	o := Obligation{UID: uid, ID: id}
	i, found := slices.BinarySearchFunc(s.Due, o, compareObligation)
	if !found {
		s.Due = slices.Insert(s.Due, i, o)
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
	for _, id := range s.Notify[uid] {
		s.addDue(uid, id)
	}
	delete(s.Notify, uid)
}

// settleCompletion handles the CompletedCh of an update that does not reach
// the terminating branch of SPEC §1.4 step 7: it waits for termination if the
// pod is terminating, else the kill is moot or already complete and fires at
// once (P/S, D, F, and — our fix of §1.17-1 — dropped updates).
func (s *State) settleCompletion(uid string, id int) {
	if id == 0 {
		return
	}
	if r, ok := s.Records[uid]; ok && r.TermRequested && !r.Terminated {
		s.Notify[uid] = append(s.Notify[uid], id)
		return
	}
	s.addDue(uid, id)
}

// leaveStatic clears uid from the static maps: on start (waiting list), and
// when it finishes or is purged (both, SPEC §1.10).
func (s *State) leaveStatic(uid, fullname string) {
	if s.StartedStatic[fullname] == uid {
		delete(s.StartedStatic, fullname)
	}
	s.leaveWaiting(uid, fullname)
}

func (s *State) leaveWaiting(uid, fullname string) {
	w := slices.DeleteFunc(s.WaitingStatic[fullname], func(u string) bool { return u == uid })
	if len(w) == 0 {
		delete(s.WaitingStatic, fullname)
		return
	}
	s.WaitingStatic[fullname] = w
}

// remove deletes a record and everything kept beside it.
func (s *State) remove(r Record) {
	s.leaveStatic(r.UID, r.FullName)
	delete(s.Records, r.UID)
	delete(s.Notify, r.UID)
}
