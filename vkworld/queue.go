package vkworld

import (
	"time"

	"github.com/podsim/podsim/sim"
)

// The work queues' retry policy, as virtual-kubelet's default rate limiter
// (client-go's controller default): the larger of an exponential per-key
// backoff from 5 ms to 1000 s and a token bucket of 10 per second with a
// burst of 100; an item is dropped after MaxRetries tries.
const (
	BaseBackoff    = 5 * time.Millisecond
	MaxBackoff     = 1000 * time.Second
	bucketInterval = 100 * time.Millisecond // 10 qps
	bucketBurst    = 100
	MaxRetries     = 20
)

// limiter is one rate limiter: each key's failures (the exponential
// backoff's state) and the token bucket's credit (tokens × interval; below
// zero a reservation waits). Each queue has its own (V7: one shared by the
// three).
type limiter struct {
	now      func() time.Duration
	failures map[string]int
	credit   time.Duration
	last     time.Duration
}

func newLimiter(now func() time.Duration) *limiter {
	return &limiter{now: now, failures: map[string]int{}, credit: bucketBurst * bucketInterval}
}

// when is the limiter's When: key's next backoff (counting one more
// failure) or the bucket's wait for a token, whichever is longer.
func (l *limiter) when(key string) time.Duration {
	n := l.failures[key]
	l.failures[key] = n + 1
	backoff := min(BaseBackoff<<min(n, 40), MaxBackoff)
	now := l.now()
	l.credit = min(bucketBurst*bucketInterval, l.credit+now-l.last)
	l.last = now
	l.credit -= bucketInterval
	return max(backoff, -l.credit)
}

func (l *limiter) forget(key string) { delete(l.failures, key) }

// redirty is a key added again while it was being processed: when and
// whether through the rate limiter.
type redirty struct {
	at      time.Duration
	limited bool
}

// queue is one of the controller's work queues, with virtual-kubelet's
// semantics: ready keys in FIFO order, each key at most once; keys waiting
// for a time (an add brings one forward, never back); keys being processed
// (one added meanwhile is redirtied: queued again after a success, dropped
// after a failure, whose retry the limiter times). Workers block on wake.
type queue struct {
	w          *World
	name       string
	items      []string
	delayed    map[string]time.Duration // key -> due time
	processing map[string]bool
	dirty      map[string]redirty
	forgotten  map[string]bool // forgotten while being processed: no retry
	requeues   map[string]int  // the retries of the key's current item
	lim        *limiter
	wake       *sim.Signal
	shut       bool
}

func newQueue(w *World, name string, lim *limiter) *queue {
	return &queue{w: w, name: name, delayed: map[string]time.Duration{}, processing: map[string]bool{},
		dirty: map[string]redirty{}, forgotten: map[string]bool{}, requeues: map[string]int{}, lim: lim, wake: w.S.NewSignal(name)}
}

func (q *queue) queued(key string) bool {
	for _, k := range q.items {
		if k == key {
			return true
		}
	}
	return false
}

// add is Enqueue: through the rate limiter.
func (q *queue) add(key string) { q.insert(key, true, nil) }

// addNow is EnqueueWithoutRateLimit.
func (q *queue) addNow(key string) { q.addAfter(key, 0) }

// addAfter is EnqueueWithoutRateLimitWithDelay: due once d has passed.
func (q *queue) addAfter(key string, d time.Duration) { q.insert(key, false, &d) }

// insert queues key: a key being processed is redirtied (the earliest time
// wins), a queued or waiting one is brought forward only; a new one waits
// for delay, or (limited with no delay) for the limiter, whose When is
// called for every limited new item.
func (q *queue) insert(key string, limited bool, delay *time.Duration) {
	if q.shut {
		return
	}
	now := q.w.S.Elapsed()
	at := now
	if delay != nil {
		at += *delay
	}
	switch due, waiting := q.delayed[key]; {
	case q.processing[key]:
		if old, ok := q.dirty[key]; !ok || at < old.at {
			q.dirty[key] = redirty{at: at, limited: limited}
		}
		delete(q.forgotten, key)
	case q.queued(key):
	case waiting:
		if at < due {
			q.schedule(key, at)
		}
	default:
		delete(q.requeues, key)
		if limited {
			if d := q.lim.when(key); delay == nil {
				at = now + d
			}
		}
		q.schedule(key, at)
	}
}

// schedule makes key ready at due (now, or by a timer).
func (q *queue) schedule(key string, due time.Duration) {
	if due <= q.w.S.Elapsed() {
		delete(q.delayed, key)
		q.items = append(q.items, key)
		q.wake.Notify()
		return
	}
	q.delayed[key] = due
	q.w.S.Go(q.name+"/after", func() {
		q.w.S.Sleep(due - q.w.S.Elapsed())
		if cur, ok := q.delayed[key]; ok && cur == due && !q.shut {
			delete(q.delayed, key)
			q.items = append(q.items, key)
			q.wake.Notify()
		}
	})
}

// forget is the queue's Forget: a queued or waiting key is dropped, one
// being processed is not retried (nor redirtied) when done.
func (q *queue) forget(key string) {
	delete(q.delayed, key)
	delete(q.requeues, key)
	for i, k := range q.items {
		if k == key {
			q.items = append(q.items[:i], q.items[i+1:]...)
			break
		}
	}
	if q.processing[key] {
		q.forgotten[key] = true
	}
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

// done finishes key. Forgotten meanwhile: the limiter forgets it. A
// failure is retried after the limiter's backoff while it has retries
// left (a redirty is dropped: the retry covers it). Otherwise the limiter
// forgets the key and a redirtied key is queued again.
func (q *queue) done(key string, err error) {
	delete(q.processing, key)
	rd, dirty := q.dirty[key]
	delete(q.dirty, key)
	if q.forgotten[key] {
		delete(q.forgotten, key)
		q.lim.forget(key)
		return
	}
	if n := q.requeues[key] + 1; err != nil && n < MaxRetries {
		q.insert(key, true, nil)
		q.requeues[key] = n
		return
	}
	q.lim.forget(key)
	delete(q.requeues, key)
	if dirty {
		d := rd.at - q.w.S.Elapsed()
		q.insert(key, rd.limited, &d)
	}
}

// busy is the number of keys queued, waiting or being processed.
func (q *queue) busy() int { return len(q.items) + len(q.delayed) + len(q.processing) }

func (q *queue) shutdown() {
	if !q.shut {
		q.shut = true
		q.wake.Notify()
	}
}
