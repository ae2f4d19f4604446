package latency

import (
	"slices"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/model/ops"
	"github.com/podsim/podsim/oracle"
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

// endView is a View whose time is at: the run went on after the epoch.
type endView struct{ at time.Duration }

func (endView) Settle() *oracle.Settle            { return nil }
func (endView) Config(types.UID) oracle.PodConfig { return oracle.PodConfig{} }
func (endView) Kubelet() oracle.Kubelet           { return nil }
func (v endView) Elapsed() time.Duration          { return v.at }

// TestKillLatencyEpochEnd: a SyncPod cancelled at 1 s and still running
// when its kubelet restarted is judged at the epoch's end. Handed every
// event and finished with a plain ErrEpochEnded, the oracle takes the end
// from the last event (a lock at 20 s: a violation; at 5 s: none); handed
// only its Kinds, as a root that leaves kinds out does, it takes it from
// oracle.EpochEnd, and finds the same. It fails when EpochEnd's time is
// not read (the oracle would judge at the cancellation, its own last
// event), or when a plain ErrEpochEnded is not judged at the last event.
func TestKillLatencyEpochEnd(t *testing.T) {
	for _, lockAt := range []time.Duration{5 * time.Second, 20 * time.Second} {
		evs := []history.Event{
			{Kind: history.CallbackBegin, Input: ops.SyncBegin{UID: "a", Fn: ops.SyncPod}},
			{Kind: history.Fired, At: time.Second, Input: ops.CancelFired{UID: "a"}},
			{Kind: history.LockAcquired, At: lockAt},
		}
		all, some := New().(*killLatency), New().(*killLatency)
		for i := range evs {
			all.Observe(nil, &evs[i])
			if some.Kinds().Has(evs[i].Kind) {
				some.Observe(nil, &evs[i])
			}
		}
		v := endView{at: time.Hour}
		a := all.Finish(v, oracle.ErrEpochEnded)
		b := some.Finish(v, oracle.EpochEnd{At: lockAt})
		want := lockAt-time.Second > KillLatencyBound
		if got := len(a) > 0; got != want {
			t.Errorf("lock at %v, every event, plain ErrEpochEnded: violations %v, want some: %v", lockAt, a, want)
		}
		if !slices.Equal(a, b) {
			t.Errorf("lock at %v: only its kinds with EpochEnd found %v, every event %v", lockAt, b, a)
		}
	}
}
