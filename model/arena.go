package model

import "github.com/podsim/podsim/model/ops"

// Arena lends the arrays of the states that the checker's Replay steps in
// place (mechanics): each part's first records array and small lists, and
// the copies a fork's outcome kept aside is given. It is reused from one
// Replay call to the next, so that a long run of checks leaves the garbage
// collector (and its write barriers) little to do. Nothing lent may outlive
// the Reset that follows: the checker never hands such states out. For
// model/check only.
type Arena struct {
	recs  recordArena
	lists partLists
}

// Start makes *s a part's initial state whose arrays a lends (copies of
// its records, at forks, are lent too), owned by the caller alone: it
// writes them in place (claim).
func (a *Arena) Start(s *State) {
	s.arena = &a.recs
	s.recs = a.recs.alloc(0, recordsPerPart)
	a.lists.lend(s)
	s.claim() // born here: the checker's alone
}

// Reset makes everything lent available again.
func (a *Arena) Reset() {
	a.recs.reset()
	a.lists.reset()
}

// recordsPerPart is the room a part's first records array is lent: a part
// holds one UID, or the few UIDs of one static full name.
const recordsPerPart = 4

// Detach gives a fork's outcome kept aside (whose records are its own
// already, forkInto) copies of every list it shares with the other, lent
// by the arena, so that each may write its arrays in place from now on.
// Except two kinds of inner lists, which stay shared: notify ID lists are
// never written in place, and a static wait list (which can grow long:
// copying it at every fork would make a long replay quadratic) is appended
// to in place only by the outcome that goes on, past the length the one
// kept aside sees (see forkInto); the one kept aside, if resumed, copies
// it before it writes.
func (a *Arena) Detach(s *State) {
	l := &a.lists
	s.Due = lendCopy(&l.due, s.Due)
	s.MayCancel = lendCopy(&l.mayCancel, s.MayCancel)
	s.Fired = lendCopy(&l.fired, s.Fired)
	s.notify = lendCopy(&l.notify, s.notify)
	s.StartedStatic = lendCopy(&l.started, s.StartedStatic)
	s.WaitingStatic = lendCopy(&l.waiting, s.WaitingStatic)
	s.claim()
	s.own &^= ownLists
}

// lendCopy copies xs into room lent by b, with room to grow by two (most
// lists never outgrow it: no allocation).
func lendCopy[T any](b *slab[T], xs []T) []T {
	return append(b.take(len(xs)+2), xs...)
}

// partLists lends each part's first state room for its small lists, reused
// from one Replay call to the next like the records (arena): a state born
// with empty lists would allocate each one as it first grows.
type partLists struct {
	due       slab[Obligation]
	mayCancel slab[string] // and wait lists (detach)
	fired     slab[int]
	notify    slab[notifyEntry]
	started   slab[StaticStarted]
	waiting   slab[StaticWaiting]
}

func (l *partLists) lend(s *State) {
	s.Due, s.MayCancel, s.Fired, s.notify = l.due.take(2), l.mayCancel.take(2), l.fired.take(4), l.notify.take(2)
}

func (l *partLists) reset() {
	l.due.reset()
	l.mayCancel.reset()
	l.fired.reset()
	l.notify.reset()
	l.started.reset()
	l.waiting.reset()
}

// slab lends small empty slices with room from one reused array; a slice
// that outgrows its room moves to the heap, as append does.
type slab[T any] struct {
	buf  []T
	used int
}

func (b *slab[T]) take(room int) []T {
	if len(b.buf)-b.used < room {
		b.buf, b.used = make([]T, max(256, 2*len(b.buf), room)), 0
	}
	lent := b.buf[b.used : b.used : b.used+room]
	b.used += room
	return lent
}

// reset drops what was lent (and what it refers to) for reuse.
func (b *slab[T]) reset() {
	clear(b.buf[:b.used])
	b.used = 0
}

// arenaNames bounds recordArena.names.
const arenaNames = 16

// fullName is p.FullName(), a string a's replays made before when there
// is one: a record's full name is only read, so records share it.
func (a *recordArena) fullName(p *ops.Pod) string {
	n := len(p.Name)
	for _, f := range a.names {
		// Names of one length differ most often in their last letter
		// (pod-a, pod-b): that byte first, then the whole.
		if len(f) != n+1+len(p.Namespace) || n > 0 && f[n-1] != p.Name[n-1] {
			continue
		}
		if f[:n] == p.Name && f[n] == '_' && f[n+1:] == p.Namespace {
			return f
		}
	}
	f := p.FullName()
	if len(a.names) < arenaNames {
		a.names = append(a.names, f)
	}
	return f
}

// fullName is p.FullName(), from s's arena when it has one.
func (s *State) fullName(p *ops.Pod) string {
	if s.arena == nil {
		return p.FullName()
	}
	return s.arena.fullName(p)
}
