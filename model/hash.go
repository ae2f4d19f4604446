package model

import "slices"

// Equality and hashing of states (mechanics). Equal compares the content —
// never the views, the copy-on-write marks or the closure memo — and
// short-cuts on arrays two states share. Hash is consistent with Equal and
// mixes every field that varies within a partition, so that porcupine's
// cache and the closure's sets rarely fall back to Equal.

// Equal reports whether two states are the same.
func (s State) Equal(t State) bool { return s.equal(&t) }

func (s *State) equal(t *State) bool {
	return s.PodsSynced == t.PodsSynced &&
		sameSlice(s.recs, t.recs) &&
		sameSlice(s.Due, t.Due) &&
		sameSlice(s.MayCancel, t.MayCancel) &&
		sameSlice(s.Fired, t.Fired) &&
		sameSlice(s.StartedStatic, t.StartedStatic) &&
		sameFunc(s.notify, t.notify, func(a, b notifyEntry) bool { return a.UID == b.UID && slices.Equal(a.IDs, b.IDs) }) &&
		sameFunc(s.WaitingStatic, t.WaitingStatic, func(a, b StaticWaiting) bool {
			return a.FullName == b.FullName && slices.Equal(a.UIDs, b.UIDs)
		})
}

func sameSlice[T comparable](a, b []T) bool {
	if len(a) != len(b) {
		return false
	}
	if len(a) == 0 || &a[0] == &b[0] {
		return true
	}
	return slices.Equal(a, b)
}

func sameFunc[T any](a, b []T, eq func(a, b T) bool) bool {
	if len(a) != len(b) {
		return false
	}
	if len(a) == 0 || &a[0] == &b[0] {
		return true
	}
	return slices.EqualFunc(a, b, eq)
}

// Hash is consistent with Equal.
func (s State) Hash() uint64 { return s.hash() }

func (s *State) hash() uint64 {
	h := hasher(len(s.recs))<<1 | hasher(boolBit(s.PodsSynced))
	for i := range s.recs {
		h = h.record(&s.recs[i])
	}
	for _, o := range s.Due {
		h = h.str(o.UID).int(int64(o.ID))
	}
	for _, uid := range s.MayCancel {
		h = h.str(uid)
	}
	for _, id := range s.Fired {
		h = h.int(int64(id))
	}
	for _, e := range s.notify {
		h = h.int(int64(len(e.IDs)))
	}
	for _, e := range s.StartedStatic {
		h = h.str(e.UID)
	}
	for _, e := range s.WaitingStatic {
		h = h.int(int64(len(e.UIDs)))
	}
	return h.sum()
}

// hasher is a small multiply-xorshift mixer (deterministic across runs).
type hasher uint64

const hashPrime = 0x9E3779B97F4A7C15

func (h hasher) int(v int64) hasher {
	x := uint64(h) ^ uint64(v)
	x *= hashPrime
	return hasher(x ^ x>>29)
}

func (h hasher) str(v string) hasher {
	h = h.int(int64(len(v)))
	for i := 0; i < len(v); i++ {
		h = hasher((uint64(h) ^ uint64(v[i])) * 0x100000001B3)
	}
	return h
}

func (h hasher) sum() uint64 {
	x := uint64(h)
	x ^= x >> 33
	x *= 0xFF51AFD7ED558CCD
	return x ^ x>>33
}

func boolBit(b bool) int {
	if b {
		return 1
	}
	return 0
}

// record mixes the fields of a record that change as it moves through its
// lifecycle (its UID tells records of one partition apart).
func (h hasher) record(r *Record) hasher {
	flags := 0
	for i, f := range [...]bool{r.Started, r.TermRequested, r.Acknowledged, r.Terminated, r.Finished,
		r.Deleted, r.Evicted, r.RestartRequested, r.ObservedRuntime, r.HasPending, r.HasActive,
		r.Pending.RuntimeOnly, r.Active.RuntimeOnly, r.Flight.Acked, r.Flight.Canceled, r.Flight.IsTerminal} {
		flags |= boolBit(f) << i
	}
	f := &r.Flight
	return h.str(r.UID).
		int(int64(flags)).
		int(r.Grace).
		int(int64(r.Pending.Pod.Version)<<8 | int64(r.Pending.Type)).
		int(int64(r.Active.Pod.Version)).
		int(int64(f.Content.Pod.Version)<<16 | int64(f.Stage)<<8 | int64(f.Fn)<<4 | int64(f.Outcome)).
		int(f.TakeGrace<<20 ^ f.AckGrace)
}
