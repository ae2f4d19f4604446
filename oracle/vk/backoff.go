package vk

import (
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/oracle"
)

// Timing is what the retry-timing check (VK8) is told of a target: its
// status queue's backoff (the first retry's wait and the cap) and how long
// after a notification of a pod the controller does not know yet that
// pod's status can still be queued (the NotifyPods callback's wait plus the
// informer's lag). A zero Timing turns VK8 off.
type Timing struct {
	BaseBackoff, MaxBackoff time.Duration
	NotifyWindow            time.Duration
}

// NewWithTiming is New with the retry-timing check (VK8) on.
func NewWithTiming(t Timing) oracle.Oracle {
	c := New().(*checker)
	c.backoff = newBackoff(c, t)
	return c
}

// VK8 (retry timing, per queue): after the n-th failure in a row of a
// pod's status write, the next write of that pod's status waits at least
// BaseBackoff·2^(n−1) (at most MaxBackoff), unless something queued the
// write again meanwhile: a notification of the pod (its status is queued at
// once), a notification of another pod under its name within NotifyWindow,
// or (for the rest of the controller's run) an unchanged status notified
// again (the controller skips it and may queue it later, on any informer
// event or resync). Failures count "in a row" only across retries nothing
// else queued, each of which adds one failure to the queue's backoff: what
// another queue does with the same key must not shorten it (V7).

// streak is one pod's run of failed status writes.
type streak struct {
	n         int           // failures in a row, each retry untriggered
	lastFail  time.Duration // when the last one failed (valid when n > 0)
	triggered bool          // something queued the write since then
}

type backoff struct {
	c        *checker
	t        Timing
	streaks  map[types.UID]*streak
	last     map[types.UID]history.VKNotified       // this run's last notification
	skipping map[string]bool                        // names with an unchanged status notified again
	notified map[string]map[types.UID]time.Duration // by name: each UID's latest notification
}

func newBackoff(c *checker, t Timing) *backoff {
	b := &backoff{c: c, t: t}
	b.reset()
	return b
}

// reset starts a controller run: its queues, limiters and tracking map are
// new.
func (b *backoff) reset() {
	b.streaks, b.last, b.skipping = map[types.UID]*streak{}, map[types.UID]history.VKNotified{}, map[string]bool{}
	b.notified = map[string]map[types.UID]time.Duration{}
}

func (b *backoff) streak(uid types.UID) *streak {
	s := b.streaks[uid]
	if s == nil {
		s = &streak{}
		b.streaks[uid] = s
	}
	return s
}

func (b *backoff) notifiedNote(n history.VKNotified, at time.Duration) {
	name := b.c.pod(n.UID).name
	if prev, ok := b.last[n.UID]; ok && prev == n {
		b.skipping[name] = true
	}
	b.last[n.UID] = n
	if b.notified[name] == nil {
		b.notified[name] = map[types.UID]time.Duration{}
	}
	b.notified[name][n.UID] = at
	b.streak(n.UID).triggered = true
}

// attempt judges a status write of uid at at (failed, with err) against
// the streak before it, then extends or ends the streak.
func (b *backoff) attempt(uid types.UID, at time.Duration, failed bool, err string) {
	s, name := b.streak(uid), b.c.pod(uid).name
	untriggered := s.n > 0 && !s.triggered && !b.skipping[name] && !b.otherNotified(name, uid, s.lastFail-b.t.NotifyWindow)
	if untriggered {
		if wait := b.bound(s.n); at-s.lastFail < wait {
			b.c.violate("VK8", "the status write of pod %s (%s) was retried %v after its failure #%d in a row at %v, "+
				"although nothing queued it again: the status queue's backoff is at least %v",
				uid, name, at-s.lastFail, s.n, s.lastFail, wait)
		}
	}
	switch {
	case !failed || err == "not found":
		*s = streak{}
	case untriggered:
		s.n, s.lastFail = s.n+1, at
	default:
		*s = streak{n: 1, lastFail: at}
	}
}

// otherNotified reports a notification of another UID under name since
// from.
func (b *backoff) otherNotified(name string, uid types.UID, from time.Duration) bool {
	for other, at := range b.notified[name] {
		if other != uid && at >= from {
			return true
		}
	}
	return false
}

// bound is the least wait after the n-th failure in a row.
func (b *backoff) bound(n int) time.Duration {
	return min(b.t.BaseBackoff<<min(n-1, 40), b.t.MaxBackoff)
}
