package model

import (
	"slices"
	"strings"
	"sync"
)

// This file is mechanics, not rules: how a State keeps its records and lists
// so that a step costs tens of bytes of copying instead of cloning maps. The
// rules read and write only through the helpers below.
//
// Layout. Every collection is a small slice sorted by its key (records by
// UID, static entries by full name); a partition's State holds one record,
// or the few records of one static full name, so a lookup is a scan of one
// or two entries.
//
// Copy on write. A State shares its slices' backing arrays with the states
// it was stepped from. clone() marks every slice shared; the first write to a
// slice copies it and marks it owned (State.own), and later writes in the
// same step go in place. Nothing writes into a shared array: a write either
// owns the array or copies it first; inner wait lists are appended to in
// place only by a state that owns its lists (ownLists: claimed, kept through
// a fork, or its only list copied), and only past what any other state
// sees. States returned by the exported
// functions and the porcupine adapter own nothing, so they can be shared
// freely; Replay's witness mode keeps the marks on the states only it holds,
// so a long run writes in place.
//
// A State passed by value while it owns arrays hands the ownership to the
// callee: the caller must not use its copy afterwards (the rules never do;
// where they need two successors they clone).

// owned records which slices a state may write in place.
type owned uint8

const (
	ownRecs owned = 1 << iota
	ownNotify
	ownStarted
	ownWaiting
	ownDue
	ownMayCancel
	ownFired
	// ownLists: the inner wait lists too (claim, forkInto,
	// ownListsIfOnlyOne); notify ID lists are never written in place.
	ownLists
)

// notifyEntry is one UID's notifyPostTerminating list.
type notifyEntry struct {
	UID string
	IDs []int
}

// StaticStarted is an entry of startedStaticPodsByFullname.
type StaticStarted struct{ FullName, UID string }

// StaticWaiting is an entry of waitingToStartStaticPodsByFullname: UIDs in
// arrival order.
type StaticWaiting struct {
	FullName string
	UIDs     []string
}

// clone returns a copy of s for a step to modify: it shares s's arrays (and
// s gives up writing them in place) and drops the views.
func (s *State) clone() State {
	if s.own != 0 {
		s.own = 0
	}
	c := *s
	c.Records, c.Notify = nil, nil
	return c
}

// forkInto makes spare a second outcome of s and returns it: a copy with
// its own copy of the records (which every fork then writes), sharing the
// other arrays, which neither state writes in place from now on — except
// the inner wait lists: s keeps appending to them in place if it did, past
// the length the copy sees (the copy copies them before it writes). s keeps
// writing its records in place if it did, so a fork in Replay's witness
// mode copies the records once, not twice. If spare owns its records'
// array (Replay hands back a dropped state's), the copy goes there.
func (s *State) forkInto(spare *State) *State {
	keep := s.own & (ownRecs | ownLists)
	var room []Record
	if spare.own&ownRecs != 0 {
		room = spare.recs[:0]
	}
	*spare = s.clone()
	if room != nil {
		spare.recs, spare.own = append(room, s.recs...), ownRecs
	} else {
		spare.recs = spare.writableRecs(0)
	}
	s.own = keep
	return spare
}

// withArena returns s lending record copies from a (nil: the heap).
func (s State) withArena(a *recordArena) State {
	s.arena = a
	return s
}

// writable returns xs ready for in-place writes with room for extra more
// elements: xs itself if s owns it, else a private copy.
func writable[T any](s *State, bit owned, xs []T, extra int) []T {
	if s.own&bit != 0 {
		return xs
	}
	s.own |= bit
	c := make([]T, len(xs), len(xs)+extra)
	copy(c, xs)
	return c
}

// claim marks every slice of s as owned. Only for a state whose arrays no
// other live state can reach: in Replay's witness mode, when a part is down
// to one state again after a fork (the other states were dropped, and
// Replay never hands its states out), so that it writes in place again.
func (s *State) claim() {
	s.own = ownRecs | ownNotify | ownStarted | ownWaiting | ownDue | ownMayCancel | ownFired | ownLists
}

// publish clears the ownership marks: s may now be shared.
func (s *State) publish() { s.own = 0 }

// writableRecs is writable for the records: while a closure steps states
// it lends the copy from its arena (see recordArena), and so does Replay,
// whose states also outgrow their arrays there (a static part gathers
// every UID of its full name): growing them on the heap would leave the
// garbage collector (and its write barriers) work at every Replay.
func (s *State) writableRecs(extra int) []Record {
	owned := s.own&ownRecs != 0
	if owned && (s.arena == nil || cap(s.recs)-len(s.recs) >= extra) {
		return s.recs
	}
	s.own |= ownRecs
	var c []Record
	switch {
	case owned: // full: twice the room, as append would
		c = s.arena.alloc(len(s.recs), 2*len(s.recs)+extra)
	case s.arena != nil:
		c = s.arena.alloc(len(s.recs), len(s.recs)+extra)
	default:
		c = make([]Record, len(s.recs), len(s.recs)+extra)
	}
	copy(c, s.recs)
	return c
}

// recordArena lends record arrays to the states that closure steps build:
// most are thrown away at once (rejected, or equal to a member of the set),
// so they need no memory of their own. A state that is kept moves its
// records into its node (node.keep) before the arena is reused; nothing
// else may outlive the nextClosed call that owns the arena.
type recordArena struct {
	free []Record
	// tried and steps are scratch lists of states for closure and
	// nextClosed, reused with the arena.
	tried, steps []State
	// names are the full names fullName made, kept by reset (at most
	// arenaNames): the records of a replay, and of the next ones that take
	// the arena, name the same few pods.
	names []string
}

var arenas = sync.Pool{New: func() any { return new(recordArena) }}

func (a *recordArena) alloc(n, c int) []Record {
	if cap(a.free)-len(a.free) < c { // a larger chunk: the one reset keeps
		a.free = make([]Record, 0, max(512, c, 2*cap(a.free)))
	}
	i := len(a.free)
	a.free = a.free[:i+c]
	return a.free[i : i+n : i+c]
}

// reset makes the whole current chunk available again.
func (a *recordArena) reset() {
	clear(a.free)
	a.free = a.free[:0]
	clear(a.tried[:cap(a.tried)])
	clear(a.steps[:cap(a.steps)])
}

// findRecord returns the index of uid's record, or where it would go. (A
// plain loop: the generic slices.BinarySearchFunc copies a whole Record per
// comparison.)
func (s *State) findRecord(uid string) (int, bool) {
	if len(s.recs) <= smallRecords {
		for i := range s.recs { // a part's state: equality first, no ordering compare
			if s.recs[i].UID == uid {
				return i, true
			}
		}
	}
	lo, hi := 0, len(s.recs)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if s.recs[m].UID < uid {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo, lo < len(s.recs) && s.recs[lo].UID == uid
}

// record returns uid's record.
func (s *State) record(uid string) (Record, bool) {
	if i, ok := s.findRecord(uid); ok {
		return s.recs[i], true
	}
	return Record{}, false
}

// recordRef points at uid's record in s, for rules that mostly only read
// it (a Record is large to copy). Do not write through it; copy it to
// change it and put the copy. A write to s may move or change it.
func (s *State) recordRef(uid string) (*Record, bool) {
	if i, ok := s.findRecord(uid); ok {
		return &s.recs[i], true
	}
	return nil, false
}

// recordToChange points at uid's record in s for a rule that changes it in
// place (rather than copying it out and putting it back: a Record is
// large), having made s's records its own (copy on write). put(r) stores
// it then at no cost. A write to s that adds or removes a record may move
// it: put it first.
func (s *State) recordToChange(uid string) (*Record, bool) {
	i, ok := s.findRecord(uid)
	if !ok {
		return nil, false
	}
	if s.own&ownRecs == 0 {
		s.recs = s.writableRecs(0)
	}
	return &s.recs[i], true
}

// Record returns uid's record, if the state has one.
func (s State) Record(uid string) (Record, bool) { return s.record(uid) }

// records returns the records sorted by UID, as a snapshot: later writes to
// s do not disturb it (s gives up writing its array in place).
func (s *State) records() []Record {
	s.own &^= ownRecs
	return s.recs
}

// put stores a copy of *r (a pointer: a Record is large to pass).
func (s *State) put(r *Record) {
	if s.own&ownRecs != 0 && len(s.recs) > 0 && s.recs[0].UID == r.UID {
		if r != &s.recs[0] { // else changed in place already (recordToChange)
			s.recs[0] = *r // the common case: a part's only record, in place
		}
		return
	}
	i, found := s.findRecord(r.UID)
	if found {
		s.recs = s.writableRecs(0)
		if r != &s.recs[i] {
			s.recs[i] = *r
		}
		return
	}
	s.recs = slices.Insert(s.writableRecs(1), i, *r)
}

// deleteRecord forgets uid's record (only the record: see remove).
func (s *State) deleteRecord(uid string) {
	if i, found := s.findRecord(uid); found {
		s.recs = slices.Delete(s.writableRecs(0), i, i+1)
	}
}

func findNotify(s *State, uid string) (int, bool) {
	if len(s.notify) <= smallRecords { // equality first, as findRecord
		for i := range s.notify {
			if s.notify[i].UID == uid {
				return i, true
			}
		}
	}
	return slices.BinarySearchFunc(s.notify, uid, func(e notifyEntry, uid string) int { return strings.Compare(e.UID, uid) })
}

// notifyIDs is uid's notifyPostTerminating list, in arrival order.
func (s *State) notifyIDs(uid string) []int {
	if i, ok := findNotify(s, uid); ok {
		return s.notify[i].IDs
	}
	return nil
}

// addNotify appends completion id to uid's list.
func (s *State) addNotify(uid string, id int) {
	i, found := findNotify(s, uid)
	s.notify = writable(s, ownNotify, s.notify, 1)
	if found {
		ids := s.notify[i].IDs
		s.notify[i].IDs = append(ids[:len(ids):len(ids)], id) // never in place
		return
	}
	s.notify = slices.Insert(s.notify, i, notifyEntry{UID: uid, IDs: []int{id}})
}

// dropNotify forgets uid's list.
func (s *State) dropNotify(uid string) {
	if i, found := findNotify(s, uid); found {
		s.notify = slices.Delete(writable(s, ownNotify, s.notify, 0), i, i+1)
	}
}

// insertDue adds o at position i of Due.
func (s *State) insertDue(i int, o Obligation) {
	s.Due = slices.Insert(writable(s, ownDue, s.Due, 1), i, o)
}

// dropDue removes Due[i].
func (s *State) dropDue(i int) { s.Due = slices.Delete(writable(s, ownDue, s.Due, 0), i, i+1) }

// allowCancel adds uid to MayCancel.
func (s *State) allowCancel(uid string) {
	if i, found := slices.BinarySearch(s.MayCancel, uid); !found {
		s.MayCancel = slices.Insert(writable(s, ownMayCancel, s.MayCancel, 1), i, uid)
	}
}

// dropMayCancel removes MayCancel[i].
func (s *State) dropMayCancel(i int) {
	s.MayCancel = slices.Delete(writable(s, ownMayCancel, s.MayCancel, 0), i, i+1)
}

// addFired adds a completion ID to Fired.
func (s *State) addFired(id int) {
	if i, found := slices.BinarySearch(s.Fired, id); !found {
		s.Fired = slices.Insert(writable(s, ownFired, s.Fired, 1), i, id)
	}
}

// withViews fills in the map views Records and Notify.
func (s State) withViews() State { return s.withViewsOf(nil) }

// withViewsOf fills in the views, sharing those of from (the state s was
// stepped from) where s's records or notify lists are still from's.
func (s State) withViewsOf(from *State) State {
	if from != nil && from.Records != nil && sameArray(s.recs, from.recs) {
		s.Records = from.Records
	} else {
		s.Records = make(map[string]Record, len(s.recs))
		for _, r := range s.recs {
			s.Records[r.UID] = r
		}
	}
	if from != nil && from.Notify != nil && sameArray(s.notify, from.notify) {
		s.Notify = from.Notify
	} else {
		s.Notify = make(map[string][]int, len(s.notify))
		for _, e := range s.notify {
			s.Notify[e.UID] = slices.Clone(e.IDs)
		}
	}
	return s
}

// sameArray reports whether a and b are the same elements of one array.
func sameArray[T any](a, b []T) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// smallRecords: up to this many records findRecord scans for the UID
// before searching for its place (string equality is cheaper than an
// ordering compare, and a partition's state holds one or a few records).
const smallRecords = 4
