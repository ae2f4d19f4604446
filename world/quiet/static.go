package quiet

import (
	"maps"
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/model/ops"
	"github.com/podsim/podsim/workers"
)

// A static pod waiting for its full name, whose retry can only repeat.
// allowStaticPodStart refuses a static pod while another UID holds its
// full name; the refused update stays pending and the pod is queued again
// with the error backoff (10–15 s), so a waiter retries four to six times
// a minute for as long as the holder runs. Those retries kept the settle
// phase of every seed that leaves a waiter behind a running holder going
// for its whole SettleTime (static-fullname-chain: 40 % of its seeds).
// Such a retry is a fixed point when all of these hold:
//
//   - the world-wide conditions of a repeatable resync (canRepeat: the
//     code as written, the world's own fake runtime, no natural
//     completion, errors healed), on which the holder's repeat rests;
//   - the waiter is a static pod in config, not deleted, not terminal, not
//     rejected (in the kubelet's world, admitted: the sync loop syncs it),
//     and the last UpdatePod it got is a plain sync of its current config
//     version (so its pending update is that update: latest wins);
//   - its record never started, no termination is requested, it is idle
//     (not working, no call in flight) with that sync update pending, no
//     kill waiting, no restart requested, and its worker is there;
//   - the full name's started entry names another UID, the holder, whose
//     record is idle in S and whose own resync can only repeat
//     (resyncRepeats): nothing in the settle phase ends the holder.
//
// Then the retry is UpdatePod(sync) with the same pod into the pending
// slot; the worker takes it, allowStaticPodStart returns false on the
// started entry alone (the wait list is not touched while a holder is
// started), the update goes back to pending and the pod back on the queue:
// the record, the static-pod maps and SyncKnownPods' answer are what they
// were, and no sync call runs. So such a retry neither keeps the queue busy
// nor counts as an input for stillness (Watch.retries): the world can be
// still while its waiters retry. A retry is counted as a repeat only if
// the housekeeping tick before it proved it one; if a counted input came
// in between (which may have changed the holder), that input breaks the
// stillness of the interval anyway, and the next tick checks afresh.
//
// The quiet ticks are not skipped while a waiter's retry falls due before
// the end of the wait (skip): a skip drops the skipped ticks' schedule
// draws, so the retries after it would draw other jitter than in the
// ticking run; without the skip both runs are the same run up to the
// quiet tick, and only the ticks after it are saved.

// lastUpdate is the last UpdatePod of a pod with a pod object.
type lastUpdate struct {
	updateType workers.UpdateType
	version    int
	kill       bool
}

// NoteUpdate records an UpdatePod of a static pod (in: the UpdatePod as
// the model sees it) for the retry rule.
func (q *Watch) NoteUpdate(o workers.UpdatePodOptions, in ops.UpdatePod) {
	switch {
	case o.Pod == nil: // a runtime pod's kill: no plain sync is pending any more
		delete(q.updates, types.UID(in.Pod.UID))
	case in.Pod.Static:
		if q.updates == nil {
			q.updates = map[types.UID]lastUpdate{}
		}
		q.updates[o.Pod.UID] = lastUpdate{updateType: o.UpdateType, version: in.Pod.Version, kill: o.KillPodOptions != nil}
	}
}

// SyncDue: the sync loop is about to make uid's queued UpdatePod(sync); a
// retry the last calm tick proved a repeat is not counted as an input.
func (q *Watch) SyncDue(uid types.UID) { q.repeat = q.retries[uid] }

// retryRepeats: uid's config (c) and last update allow a repeated refused
// retry.
func (q *Watch) retryRepeats(uid types.UID, c Config) bool {
	last, ok := q.updates[uid]
	return c.Static && c.Steady && ok && last == lastUpdate{updateType: workers.SyncPodSync, version: c.Version}
}

// waitingIdle: the record is a static pod refused its start, idle, with
// a sync update pending.
func waitingIdle(s workers.PodStateSnapshot) bool {
	return !s.Started && !s.TerminationRequested && !s.Working && !s.InFlight && s.HasPendingUpdate &&
		s.PendingUpdateType == workers.SyncPodSync && s.PendingKills == 0 && !s.RestartRequested && s.HasWorker
}

// retriesRepeat reports whether waiters (each waitingIdle, by record)
// retry into a refusal: their full name is held by another UID that is
// idle in S with a repeatable resync (idleInS: the UIDs idle in S). It
// reads the static-pod maps through Holder (a scheduling point: the
// caller asks Stirring again).
func (q *Watch) retriesRepeat(waiters map[types.UID]string, idleInS map[types.UID]bool) bool {
	holders := map[string]types.UID{}
	for _, uid := range slices.Sorted(maps.Keys(waiters)) {
		name := waiters[uid]
		if _, ok := holders[name]; !ok {
			holders[name] = q.world.Holder(name)
		}
		h := holders[name]
		if h == "" || h == uid || !idleInS[h] || !q.resyncRepeats(h, q.world.Config(h)) {
			return false
		}
	}
	return true
}

// retryDueBefore: a proven retry falls due before t (skip).
func (q *Watch) retryDueBefore(t time.Duration) bool {
	return q.nextRetry < t
}
