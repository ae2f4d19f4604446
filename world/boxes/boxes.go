// Package boxes keeps the interface values (boxes) a kubelet world's events
// carry, for its lane's later events and runs: an event input, output or
// note equal to one boxed before gets the box made then, not a new one.
// A box holds a copy of its value that nothing can change, so events may
// share one: an event reads the same either way. The seeds of a lane make
// the same few values again and again (the same UIDs, sync functions and
// outcomes), so most events need no allocation.
package boxes

import (
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/model/ops"
)

// Cache holds the boxes of the values boxed last, one a slot, a value's
// slot chosen by a hash of its fields. The zero value is ready; it is
// kept across runs (world.Renew). A nil *Cache boxes every value afresh
// (a world built once: its one run would not repay the slots' 165 KB).
type Cache struct {
	updates  cache[ops.UpdatePod, ops.Input]
	begins   cache[ops.SyncBegin, ops.Input]
	ends     cache[ops.SyncEnd, ops.Input]
	done     cache[ops.CompletionFired, ops.Input]
	cancels  cache[ops.CancelFired, ops.Input]
	reads    cache[history.StatusRead, history.Note]
	requeues cache[history.Requeued, history.Note]
	started  cache[history.WorkerStarted, history.Note]
	ended    cache[history.WorkerEnded, history.Note]
	drains   cache[drain, history.Note]
}

// drain is a history.WorkerDrainEnded with no worker stuck.
type drain struct{ bound, waited time.Duration }

// bits is the log2 of a cache's slots.
const bits = 8

// cache is one type's slots.
type cache[T comparable, I any] [1 << bits]slot[T, I]

// slot holds box, v boxed, once set.
type slot[T comparable, I any] struct {
	v   T
	box I
	set bool
}

// box is v's box in c, v's hash h: the one v's slot holds, or else one
// conv makes, kept there.
func box[T comparable, I any](c *cache[T, I], h uint64, v T, conv func(T) I) I {
	s := &c[(h*0x9e3779b97f4a7c15)>>(64-bits)]
	if !s.set || s.v != v {
		s.v, s.box, s.set = v, conv(v), true
	}
	return s.box
}

// input and note are v boxed.
func input[T ops.Input](v T) ops.Input      { return v }
func note[T history.Note](v T) history.Note { return v }

// mix adds x to hash h.
func mix(h, x uint64) uint64 { return (h ^ x) * 0x100000001b3 }

// str is a hash of s from its length and its first and last bytes: UIDs
// are short, and a worker's name ends in what tells it from the other
// workers of its pod.
func str(s string) uint64 {
	if s == "" {
		return 0
	}
	return uint64(len(s))<<16 | uint64(s[0])<<8 | uint64(s[len(s)-1])
}

// b2u is b as a bit.
func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// Kept is c, or a new Cache if c is nil.
func (c *Cache) Kept() *Cache {
	if c == nil {
		return new(Cache)
	}
	return c
}

// Update is v boxed.
func (c *Cache) Update(v ops.UpdatePod) ops.Input {
	if c == nil {
		return v
	}
	p := &v.Pod
	h := mix(mix(mix(mix(str(p.UID), uint64(v.Type)), uint64(p.Version)), uint64(p.Phase)), uint64(p.SpecGrace))
	h = mix(mix(mix(h, uint64(v.Kill.CompletionID)), uint64(v.Kill.GraceOverride)), uint64(p.DeletionGrace))
	return box(&c.updates, mix(h, b2u(p.DeletionTimestamp)|b2u(v.RuntimeOnly)<<1|b2u(v.Kill.Evict)<<2|uint64(v.Cache)<<3), v, input)
}

// Begin is v boxed.
func (c *Cache) Begin(v ops.SyncBegin) ops.Input {
	if c == nil {
		return v
	}
	return box(&c.begins, mix(mix(mix(mix(str(v.UID), uint64(v.Fn)), uint64(v.Type)), uint64(v.Version)), uint64(v.Grace)), v, input)
}

// End is v boxed.
func (c *Cache) End(v ops.SyncEnd) ops.Input {
	if c == nil {
		return v
	}
	return box(&c.ends, mix(mix(mix(str(v.UID), uint64(v.Fn)), uint64(v.Outcome)), uint64(v.Err.BackoffExpiry)), v, input)
}

// Fired is what a fired event of uid emits: ops.CompletionFired{UID: uid,
// ID: id}, boxed, or ops.CancelFired{UID: uid} for a negative id (a
// cancellation's).
func (c *Cache) Fired(uid string, id int) ops.Input {
	switch {
	case c == nil && id < 0:
		return ops.CancelFired{UID: uid}
	case c == nil:
		return ops.CompletionFired{UID: uid, ID: id}
	case id < 0:
		return box(&c.cancels, str(uid), ops.CancelFired{UID: uid}, input)
	}
	return box(&c.done, mix(str(uid), uint64(id)), ops.CompletionFired{UID: uid, ID: id}, input)
}

// StatusRead is history.StatusRead{UID: uid, NewerThan: newer} boxed.
func (c *Cache) StatusRead(uid types.UID, newer time.Duration) history.Note {
	v := history.StatusRead{UID: uid, NewerThan: newer}
	if c == nil {
		return v
	}
	return box(&c.reads, mix(str(string(uid)), uint64(newer)), v, note)
}

// Requeued is history.Requeued{UID: uid, Delay: delay} boxed.
func (c *Cache) Requeued(uid types.UID, delay time.Duration) history.Note {
	v := history.Requeued{UID: uid, Delay: delay}
	if c == nil {
		return v
	}
	return box(&c.requeues, mix(str(string(uid)), uint64(delay)), v, note)
}

// Worker is the note of a worker goroutine's start (history.WorkerStarted)
// or, when ended, of its end (history.WorkerEnded), boxed.
func (c *Cache) Worker(name string, uid types.UID, kubelet int, ended bool) history.Note {
	h := mix(mix(str(name), str(string(uid))), uint64(kubelet))
	switch {
	case ended && c == nil:
		return history.WorkerEnded{Goroutine: name, UID: uid, Kubelet: kubelet}
	case ended:
		return box(&c.ended, h, history.WorkerEnded{Goroutine: name, UID: uid, Kubelet: kubelet}, note)
	case c == nil:
		return history.WorkerStarted{Goroutine: name, UID: uid, Kubelet: kubelet}
	}
	return box(&c.started, h, history.WorkerStarted{Goroutine: name, UID: uid, Kubelet: kubelet}, note)
}

// DrainEnded is v boxed.
func (c *Cache) DrainEnded(v history.WorkerDrainEnded) history.Note {
	if c == nil || v.Stuck != nil {
		return v
	}
	return box(&c.drains, mix(uint64(v.Bound), uint64(v.Waited)), drain{v.Bound, v.Waited}, func(d drain) history.Note {
		return history.WorkerDrainEnded{Bound: d.bound, Waited: d.waited}
	})
}
