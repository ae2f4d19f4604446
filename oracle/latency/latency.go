// Package latency is the kill-latency oracle: a SyncPod must return
// promptly once its cancellation fired (docs/bugs.md B16).
package latency

import (
	"errors"
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/model/ops"
	"github.com/podsim/podsim/oracle"
)

// KillLatencyBound is how long a SyncPod may go on after its cancellation
// fired: the pod workers cancel the sync context on a kill (S3), and the
// kubelet's SyncPod must then return promptly so the containers stop
// within the grace period (docs/bugs.md B16, #125050). The fake runtime's
// honest calls take at most Faults.MaxDelay (≤ 5 s in every family; a test
// holds them to it), so only a runtime that ignores the kill for long, the
// B16 fault mode, exceeds it.
const KillLatencyBound = 10 * time.Second

// killLatency is the B16 oracle: per UID, the SyncPod in flight and when
// its cancellation fired.
type killLatency struct {
	inFlight   history.Few[types.UID, syncPodCall] // by value: a SyncPod allocates nothing
	violations []history.Violation
	uids       []types.UID // Finish's buffer
	// last is the time of the last event observed: for an epoch a kubelet
	// restart ended (a plain oracle.ErrEpochEnded), when its process (and
	// every call in flight) died. A root that hands it only its Kinds says
	// when instead (oracle.EpochEnd).
	last time.Duration
}

type syncPodCall struct {
	began, cancelled time.Duration
	wasCancelled     bool
}

// New returns the kill-latency oracle.
func New() oracle.Oracle { return &killLatency{} }

// Reset implements oracle.Resetter.
func (k *killLatency) Reset() {
	k.inFlight.Reset()
	*k = killLatency{inFlight: k.inFlight, uids: k.uids[:0]}
}

// Kinds implements oracle.KindFilter: the callbacks and the firings.
// Observe notes the time of every other event too (last), which Finish
// reads only for a plain oracle.ErrEpochEnded.
func (k *killLatency) Kinds() oracle.Kinds {
	return oracle.KindsOf(history.CallbackBegin, history.CallbackEnd, history.Fired)
}

// Observe follows SyncPod begin and end and the cancellations between.
func (k *killLatency) Observe(_ oracle.View, ev *history.Event) {
	if ev.Kind == history.Noted {
		return
	}
	k.last = ev.At
	switch in := ev.Input.(type) {
	case ops.SyncBegin:
		if ev.Kind == history.CallbackBegin && in.Fn == ops.SyncPod {
			k.inFlight.Set(types.UID(in.UID), syncPodCall{began: ev.At})
		}
	case ops.CancelFired:
		if c, ok := k.inFlight.Get(types.UID(in.UID)); ok && !c.wasCancelled {
			c.cancelled, c.wasCancelled = ev.At, true
			k.inFlight.Set(types.UID(in.UID), c)
		}
	case ops.SyncEnd:
		uid := types.UID(in.UID)
		if c, ok := k.inFlight.Get(uid); ev.Kind == history.CallbackEnd && in.Fn == ops.SyncPod && ok {
			k.check(uid, &c, ev.At, ev.Seq)
			k.inFlight.Del(uid)
		}
	}
}

// epochEnd is the end of the epoch err (an ErrEpochEnded) ended: the time
// oracle.EpochEnd carries, else last, the oracle's own last event. (Only
// for an ended epoch: the error's As target is an allocation.)
func epochEnd(err error, last time.Duration) time.Duration {
	var ended oracle.EpochEnd
	if errors.As(err, &ended) {
		return ended.At
	}
	return last
}

func (k *killLatency) check(uid types.UID, c *syncPodCall, now time.Duration, seq int64) {
	if !c.wasCancelled || now-c.cancelled <= KillLatencyBound {
		return
	}
	k.violations = append(k.violations, history.Violation{Oracle: "runtime", Invariant: "kill-latency", At: now, Seq: seq,
		Message: "pod " + string(uid) + ": SyncPod (began " + c.began.String() + ") went on for " +
			(now - c.cancelled).String() + " after its cancellation at " + c.cancelled.String() +
			", beyond the " + KillLatencyBound.String() + " kill-latency bound: the kill waited for it (B16, #125050)"})
}

// Finish reports the late SyncPods, including one still running at the end
// (at the restart, for an epoch a kubelet restart ended: the dead process's
// calls end with it, however long the simulation lets them run on).
func (k *killLatency) Finish(v oracle.View, runErr error) []history.Violation {
	end := v.Elapsed()
	if errors.Is(runErr, oracle.ErrEpochEnded) {
		end = epochEnd(runErr, k.last)
	}
	uids := append(k.uids[:0], k.inFlight.Keys()...)
	slices.Sort(uids)
	k.uids = uids
	for _, uid := range uids {
		c, _ := k.inFlight.Get(uid)
		k.check(uid, &c, end, 0)
	}
	return k.violations
}
