package workers

import (
	"cmp"
	"slices"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"
)

// Queue is the kubelet's basic work queue (pkg/kubelet/util/queue): at most
// one entry per UID, a later Enqueue replacing the earlier due time. It is
// read at an explicit time, and due entries come out in a deterministic
// order, so a simulated kubelet can drain it without map order leaking.
type Queue struct {
	rt      Runtime
	lock    sync.Locker
	entries []QueueEntry     // by UID, one each: a search, no hash, no map to walk
	due     []QueueEntry     // GetWork's buffer
	first   [2][4]QueueEntry // the first arrays of entries and due
}

// QueueEntry is one queued UID and when it is due.
type QueueEntry struct {
	UID types.UID
	Due time.Time
}

// NewQueue returns an empty queue whose delays count from rt.Now().
func NewQueue(rt Runtime) *Queue { return RenewQueue(nil, rt) }

// RenewQueue is NewQueue(rt) built in the memory of prev, a queue of
// NewQueue or RenewQueue that nothing uses any more (nil: a new one).
func RenewQueue(prev *Queue, rt Runtime) *Queue {
	q := prev
	if q == nil {
		q = new(Queue)
	}
	*q = Queue{rt: rt, lock: rt.NewMutex("workQueue")}
	q.entries, q.due = q.first[0][:0], q.first[1][:0] // most runs queue a few UIDs: no allocation
	return q
}

// Enqueue makes uid due after delay, replacing any earlier entry.
func (q *Queue) Enqueue(uid types.UID, delay time.Duration) {
	q.lock.Lock()
	defer q.lock.Unlock()
	e := QueueEntry{UID: uid, Due: q.rt.Now().Add(delay)}
	lo, hi := 0, len(q.entries) // a binary search by UID
	for lo < hi {
		if h := int(uint(lo+hi) >> 1); q.entries[h].UID < uid {
			lo = h + 1
		} else {
			hi = h
		}
	}
	if lo < len(q.entries) && q.entries[lo].UID == uid {
		q.entries[lo] = e
	} else {
		q.entries = slices.Insert(q.entries, lo, e)
	}
}

// GetWork removes and returns the UIDs due at now (due time ≤ now; the
// kubelet's queue needs strictly before, which under a fake clock would
// delay a zero-delay entry until time moves), by due time, then UID.
func (q *Queue) GetWork(now time.Time) []types.UID {
	q.lock.Lock()
	defer q.lock.Unlock()
	due := q.takeDueLocked(now)
	uids := make([]types.UID, len(due))
	for i, entry := range due {
		uids[i] = entry.UID
	}
	return uids
}

// AppendWork is GetWork appending the UIDs due to dst, a caller's buffer,
// not to a new slice (the world's sync loop, which reads them at once).
func (q *Queue) AppendWork(dst []types.UID, now time.Time) []types.UID {
	q.lock.Lock()
	defer q.lock.Unlock()
	for _, entry := range q.takeDueLocked(now) {
		dst = append(dst, entry.UID)
	}
	return dst
}

// takeDueLocked removes the entries due at now from the queue and returns
// them by due time, then UID, in the queue's buffer (q.due: read before
// the next call).
func (q *Queue) takeDueLocked(now time.Time) []QueueEntry {
	due, kept := q.due[:0], q.entries[:0] // kept is filled behind the reading
	for _, e := range q.entries {
		if e.Due.After(now) {
			kept = append(kept, e)
		} else {
			due = append(due, e)
		}
	}
	clear(q.entries[len(kept):])
	q.entries = kept
	slices.SortFunc(due, compareEntries) // UIDs are unique: a total order
	q.due = due
	return due
}

// compareEntries orders queue entries by due time, then UID.
func compareEntries(a, b QueueEntry) int {
	if c := a.Due.Compare(b.Due); c != 0 {
		return c
	}
	return cmp.Compare(a.UID, b.UID)
}

// Entries returns every queued entry, by due time, then UID, without
// removing any.
func (q *Queue) Entries() []QueueEntry { return q.AppendEntries(nil) }

// AppendEntries is Entries in out's array (a buffer the caller reuses).
func (q *Queue) AppendEntries(out []QueueEntry) []QueueEntry {
	q.lock.Lock()
	defer q.lock.Unlock()
	return q.entriesLocked(out[:0])
}

// Len is the number of queued UIDs.
func (q *Queue) Len() int {
	q.lock.Lock()
	defer q.lock.Unlock()
	return len(q.entries)
}

func (q *Queue) entriesLocked(entries []QueueEntry) []QueueEntry {
	entries = append(entries, q.entries...)
	slices.SortFunc(entries, compareEntries)
	return entries
}
