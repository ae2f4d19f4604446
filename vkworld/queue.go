package vkworld

import (
	"time"

	"github.com/podsim/podsim/sim"
)

// The work queue's retry policy, as virtual-kubelet's defaults: an
// exponential per-key backoff from 5 ms to 1000 s, and an item dropped
// after MaxRetries failures.
const (
	baseBackoff = 5 * time.Millisecond
	maxBackoff  = 1000 * time.Second
	MaxRetries  = 20
)

// limiter counts each key's failures: the exponential backoff's state.
type limiter struct{ failures map[string]int }

func (l *limiter) when(key string) time.Duration {
	n := l.failures[key]
	l.failures[key] = n + 1
	d := baseBackoff << min(n, 40)
	return min(d, maxBackoff)
}

func (l *limiter) forget(key string) { delete(l.failures, key) }

// queue is one of the controller's work queues: ready keys in FIFO order,
// each key at most once; keys waiting for a delay; keys being processed
// (one added meanwhile is dirty and is queued again when done). Workers
// block on wake.
type queue struct {
	w          *World
	name       string
	items      []string
	delayed    map[string]time.Duration // key -> due time
	processing map[string]bool
	dirty      map[string]bool
	forgotten  map[string]bool // forgotten while being processed: no retry
	lim        *limiter
	wake       *sim.Signal
	shut       bool
	timers     int
}

func newQueue(w *World, name string, lim *limiter) *queue {
	return &queue{w: w, name: name, delayed: map[string]time.Duration{}, processing: map[string]bool{},
		dirty: map[string]bool{}, forgotten: map[string]bool{}, lim: lim, wake: w.S.NewSignal(name)}
}

func (q *queue) queued(key string) bool {
	for _, k := range q.items {
		if k == key {
			return true
		}
	}
	return false
}

// add queues key now (a delayed key is brought forward).
func (q *queue) add(key string) {
	if q.shut {
		return
	}
	if q.processing[key] {
		q.dirty[key] = true
		return
	}
	delete(q.delayed, key)
	if !q.queued(key) {
		q.items = append(q.items, key)
		q.wake.Notify()
	}
}

// addAfter queues key once d has passed, unless it is queued earlier.
func (q *queue) addAfter(key string, d time.Duration) {
	if d <= 0 {
		q.add(key)
		return
	}
	due := q.w.S.Elapsed() + d
	if q.shut || q.queued(key) {
		return
	}
	if old, ok := q.delayed[key]; ok && old <= due {
		return
	}
	q.delayed[key] = due
	q.timers++
	q.w.S.Go(q.name+"/after", func() {
		q.w.S.Sleep(d)
		q.timers--
		if cur, ok := q.delayed[key]; ok && cur == due && !q.shut {
			delete(q.delayed, key)
			if q.processing[key] {
				q.dirty[key] = true
			} else if !q.queued(key) {
				q.items = append(q.items, key)
				q.wake.Notify()
			}
		}
	})
}

// forget drops key: from the queue, its delay and its backoff; a key being
// processed is not retried.
func (q *queue) forget(key string) {
	delete(q.delayed, key)
	for i, k := range q.items {
		if k == key {
			q.items = append(q.items[:i], q.items[i+1:]...)
			break
		}
	}
	if q.processing[key] {
		q.forgotten[key] = true
	}
	q.lim.forget(key)
}

// get blocks for the next key; false once the queue is shut down (each
// worker that leaves wakes the next: the signal is never closed, since a
// Notify racing the shutdown must not find it closed).
func (q *queue) get() (string, bool) {
	for {
		if q.shut {
			q.wake.Notify()
			return "", false
		}
		if len(q.items) > 0 {
			break
		}
		q.wake.Wait()
	}
	key := q.items[0]
	q.items = q.items[1:]
	q.processing[key] = true
	return key, true
}

// done finishes key: a failure is retried after the limiter's backoff (up
// to MaxRetries), a success forgets the backoff; a key added meanwhile is
// queued again.
func (q *queue) done(key string, err error) {
	delete(q.processing, key)
	forgotten := q.forgotten[key]
	delete(q.forgotten, key)
	switch {
	case err != nil && !forgotten && q.lim.failures[key] < MaxRetries:
		q.addAfter(key, q.lim.when(key))
	case err != nil:
		q.lim.forget(key)
	default:
		q.lim.forget(key)
	}
	if q.dirty[key] {
		delete(q.dirty, key)
		q.add(key)
	}
}

// busy is the number of keys queued, delayed or being processed.
func (q *queue) busy() int { return len(q.items) + len(q.delayed) + len(q.processing) }

func (q *queue) shutdown() {
	if !q.shut {
		q.shut = true
		q.wake.Notify()
	}
}
