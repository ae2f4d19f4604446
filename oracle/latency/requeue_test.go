package latency

import (
	"testing"
	"time"

	k8stypes "k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/model"
)

// TestRequeueDelay feeds the requeue-delay check (R1) one sync return and
// the requeue after it: the right delay for each outcome passes, a delay
// out of its range is reported, and so is one a mutant of the pod workers
// makes (a lost phase transition, a zero resync interval, a jitter beyond
// ×1.5).
func TestRequeueDelay(t *testing.T) {
	p := Periods{Resync: time.Minute, Backoff: 10 * time.Second}
	ok := func(fn model.SyncFn) *model.SyncEnd { return &model.SyncEnd{UID: "a", Fn: fn, Outcome: model.OK} }
	failed := func(fn model.SyncFn, o model.Outcome) *model.SyncEnd {
		return &model.SyncEnd{UID: "a", Fn: fn, Outcome: o}
	}
	terminal := &model.SyncEnd{UID: "a", Fn: model.SyncPod, Outcome: model.OK, IsTerminal: true}
	cases := []struct {
		name          string
		end           *model.SyncEnd // nil: no sync call returned before the requeue
		delay         time.Duration
		wantViolation bool
	}{
		{"synced, resync interval", ok(model.SyncPod), time.Minute, false},
		{"synced, resync interval jittered to the top", ok(model.SyncPod), 90 * time.Second, false},
		{"synced, requeued at once (resync interval lost)", ok(model.SyncPod), 0, true},
		{"synced, jitter beyond ×1.5", ok(model.SyncPod), 90*time.Second + time.Millisecond, true},
		{"terminal SyncPod, at once", terminal, 0, false},
		{"terminal SyncPod, phase transition lost", terminal, time.Minute, true},
		{"terminated, at once", ok(model.SyncTerminatingPod), 0, false},
		{"terminated, phase transition lost", ok(model.SyncTerminatingPod), time.Minute, true},
		{"error, backoff", failed(model.SyncPod, model.Failed), 12 * time.Second, false},
		{"cancelled, backoff", failed(model.SyncTerminatingPod, model.Canceled), 10 * time.Second, false},
		{"error, retried at once", failed(model.SyncPod, model.Failed), 0, true},
		{"error, retried after the resync interval", failed(model.SyncPod, model.Failed), time.Minute, true},
		{"no sync call (refused static start), backoff", nil, 15 * time.Second, false},
		{"no sync call, at once", nil, 0, true},
	}
	for _, c := range cases {
		k := NewRequeue(p).(*requeueCheck)
		if c.end != nil {
			k.Observe(nil, history.Event{Kind: history.CallbackEnd, Input: *c.end})
		}
		k.Observe(nil, history.Event{Kind: history.Noted, Note: history.Requeued{UID: "a", Delay: c.delay}})
		if got := len(k.Finish(nil, nil)) > 0; got != c.wantViolation {
			t.Errorf("%s: got violation %v (%v), want %v", c.name, got, k.violations, c.wantViolation)
		}
	}
}

// TestRequeueDelayPairing: a requeue is judged against its own pod's last
// return, once; the return of a worker that exits (SyncTerminatedPod) and
// a kubelet restart leave no return to judge against.
func TestRequeueDelayPairing(t *testing.T) {
	p := Periods{Resync: time.Minute, Backoff: 10 * time.Second}
	k := NewRequeue(p).(*requeueCheck)
	end := func(uid string, fn model.SyncFn) {
		k.Observe(nil, history.Event{Kind: history.CallbackEnd, Input: model.SyncEnd{UID: uid, Fn: fn, Outcome: model.OK}})
	}
	requeue := func(uid string, d time.Duration) {
		k.Observe(nil, history.Event{Kind: history.Noted, Note: history.Requeued{UID: k8stypes.UID(uid), Delay: d}})
	}
	end("a", model.SyncPod)
	end("b", model.SyncTerminatingPod)
	requeue("b", 0)
	requeue("a", time.Minute)
	requeue("a", 10*time.Second) // a second requeue of a follows no return: the backoff
	end("a", model.SyncTerminatedPod)
	requeue("a", 10*time.Second) // a later record of a (UID reuse)
	end("a", model.SyncPod)
	k.Observe(nil, history.Event{Kind: history.Restarted})
	requeue("a", 10*time.Second) // the new process's first requeue of a
	if v := k.Finish(nil, nil); len(v) != 0 {
		t.Errorf("legal requeues reported: %v", v)
	}
	end("b", model.SyncPod)
	requeue("b", 10*time.Second)
	if v := k.Finish(nil, nil); len(v) != 1 {
		t.Errorf("a successful SyncPod requeued after the backoff period: got %v, want one violation", v)
	}
}
