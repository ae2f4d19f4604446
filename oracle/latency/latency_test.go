package latency

import (
	"testing"
	"time"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/model/ops"
)

// TestKillLatencyOracle feeds the oracle SyncPod calls: only one that runs
// past the bound after its cancellation is reported.
func TestKillLatencyOracle(t *testing.T) {
	cases := []struct {
		name             string
		cancelAt, endAt  time.Duration // cancelAt < 0: never cancelled
		wantViolation    bool
		otherUIDCancelAt time.Duration
	}{
		{"returns promptly after the kill", time.Second, 5 * time.Second, false, -1},
		{"returns at the bound", time.Second, time.Second + KillLatencyBound, false, -1},
		{"ignores the kill", time.Second, 2*time.Second + KillLatencyBound, true, -1},
		{"long but never cancelled", -1, time.Minute, false, -1},
		{"another pod's cancellation", -1, time.Minute, false, time.Second},
	}
	for _, c := range cases {
		k := New().(*killLatency)
		k.Observe(nil, &history.Event{Kind: history.CallbackBegin, Input: ops.SyncBegin{UID: "a", Fn: ops.SyncPod}})
		if c.cancelAt >= 0 {
			k.Observe(nil, &history.Event{Kind: history.Fired, At: c.cancelAt, Input: ops.CancelFired{UID: "a"}})
		}
		if c.otherUIDCancelAt >= 0 {
			k.Observe(nil, &history.Event{Kind: history.Fired, At: c.otherUIDCancelAt, Input: ops.CancelFired{UID: "b"}})
		}
		k.Observe(nil, &history.Event{Kind: history.CallbackEnd, At: c.endAt, Input: ops.SyncEnd{UID: "a", Fn: ops.SyncPod}})
		if got := len(k.violations) > 0; got != c.wantViolation {
			t.Errorf("%s: got violation %v (%v), want %v", c.name, got, k.violations, c.wantViolation)
		}
	}
}
