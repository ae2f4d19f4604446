package latency

import (
	"testing"
	"time"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/model/ops"
)

// TestRequeueMessages: a late requeue's message says, for each kind of
// return it follows, its window and why (check builds the why only for a
// violation: the text is the one it always was).
func TestRequeueMessages(t *testing.T) {
	p := Periods{Resync: time.Minute, Backoff: 10 * time.Second, Transient: time.Second}
	const at = 100 * time.Second
	end := func(fn ops.SyncFn, o ops.Outcome, terminal bool, e ops.ErrShape) *ops.SyncEnd {
		return &ops.SyncEnd{UID: "a", Fn: fn, Outcome: o, IsTerminal: terminal, Err: e}
	}
	for _, c := range []struct {
		end  *ops.SyncEnd
		want string
	}{
		{nil, "pod a requeued after 1h0m0s, want 10s to 15s (no sync call returned before it (a status read failed or a static start was refused): the backoff period, jittered ×[1, 1.5]; SPEC §1.8 step 5) (R1)"},
		{end(ops.SyncPod, ops.OK, true, ops.ErrShape{}), "pod a requeued after 1h0m0s, want 0s to 0s (SyncPod succeeded with isTerminal, a phase transition: at once, jittered ×[1, 1.5]; SPEC §1.8 step 5) (R1)"},
		{end(ops.SyncTerminatingPod, ops.OK, false, ops.ErrShape{}), "pod a requeued after 1h0m0s, want 0s to 0s (SyncTerminatingPod succeeded, a phase transition: at once, jittered ×[1, 1.5]; SPEC §1.8 step 5) (R1)"},
		{end(ops.SyncPod, ops.OK, false, ops.ErrShape{}), "pod a requeued after 1h0m0s, want 1m0s to 1m30s (SyncPod succeeded: the resync interval, jittered ×[1, 1.5]; SPEC §1.8 step 5) (R1)"},
		{end(ops.SyncPod, ops.Failed, false, ops.ErrShape{NetworkNotReady: true}), "pod a requeued after 1h0m0s, want 1s to 1.5s (SyncPod ended error, network not ready: the transient-error backoff, jittered ×[1, 1.5]; SPEC §1.8 step 5) (R1)"},
		{end(ops.SyncPod, ops.Failed, false, ops.ErrShape{Backoff: true, BackoffExpiry: at + 20*time.Second}), "pod a requeued after 1h0m0s, want 20s to 30s (SyncPod ended error, earliest BackoffError expiry at 2m0s: the time to it from 1m40s, within [0, the resync interval 1m0s], jittered ×[1, 1.5]; SPEC §1.8 step 5) (R1)"},
		{end(ops.SyncTerminatingPod, ops.Canceled, false, ops.ErrShape{}), "pod a requeued after 1h0m0s, want 10s to 15s (SyncTerminatingPod ended canceled: the backoff period, jittered ×[1, 1.5]; SPEC §1.8 step 5) (R1)"},
	} {
		k := NewRequeue(p).(*requeueCheck)
		if c.end != nil {
			k.Observe(nil, &history.Event{Kind: history.CallbackEnd, Input: *c.end})
		}
		k.Observe(nil, &history.Event{Kind: history.Noted, At: at, Note: history.Requeued{UID: "a", Delay: time.Hour}})
		if v := k.Finish(nil, nil); len(v) != 1 || v[0].Message != c.want {
			t.Errorf("got %v, want one violation: %s", v, c.want)
		}
	}
}
