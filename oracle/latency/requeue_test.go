package latency

import (
	"testing"
	"time"

	k8stypes "k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/model/ops"
)

// TestRequeueDelay feeds the requeue-delay check (R1) one sync return and
// the requeue after it: the right delay for each outcome passes, a delay
// out of its range is reported, and so is one a mutant of the pod workers
// makes (a lost phase transition, a zero resync interval, a jitter beyond
// ×1.5).
func TestRequeueDelay(t *testing.T) {
	p := Periods{Resync: time.Minute, Backoff: 10 * time.Second}
	ok := func(fn ops.SyncFn) *ops.SyncEnd { return &ops.SyncEnd{UID: "a", Fn: fn, Outcome: ops.OK} }
	failed := func(fn ops.SyncFn, o ops.Outcome) *ops.SyncEnd {
		return &ops.SyncEnd{UID: "a", Fn: fn, Outcome: o}
	}
	terminal := &ops.SyncEnd{UID: "a", Fn: ops.SyncPod, Outcome: ops.OK, IsTerminal: true}
	cases := []struct {
		name          string
		end           *ops.SyncEnd // nil: no sync call returned before the requeue
		delay         time.Duration
		wantViolation bool
	}{
		{"synced, resync interval", ok(ops.SyncPod), time.Minute, false},
		{"synced, resync interval jittered to the top", ok(ops.SyncPod), 90 * time.Second, false},
		{"synced, requeued at once (resync interval lost)", ok(ops.SyncPod), 0, true},
		{"synced, jitter beyond ×1.5", ok(ops.SyncPod), 90*time.Second + time.Millisecond, true},
		{"terminal SyncPod, at once", terminal, 0, false},
		{"terminal SyncPod, phase transition lost", terminal, time.Minute, true},
		{"terminated, at once", ok(ops.SyncTerminatingPod), 0, false},
		{"terminated, phase transition lost", ok(ops.SyncTerminatingPod), time.Minute, true},
		{"error, backoff", failed(ops.SyncPod, ops.Failed), 12 * time.Second, false},
		{"cancelled, backoff", failed(ops.SyncTerminatingPod, ops.Canceled), 10 * time.Second, false},
		{"error, retried at once", failed(ops.SyncPod, ops.Failed), 0, true},
		{"error, retried after the resync interval", failed(ops.SyncPod, ops.Failed), time.Minute, true},
		{"no sync call (refused static start), backoff", nil, 15 * time.Second, false},
		{"no sync call, at once", nil, 0, true},
	}
	reused := NewRequeue(p).(*requeueCheck) // one check for every case, Reset between
	for _, c := range cases {
		reused.Reset()
		for _, k := range []*requeueCheck{NewRequeue(p).(*requeueCheck), reused} {
			if c.end != nil {
				k.Observe(nil, &history.Event{Kind: history.CallbackEnd, Input: *c.end})
			}
			k.Observe(nil, &history.Event{Kind: history.Noted, Note: history.Requeued{UID: "a", Delay: c.delay}})
			if got := len(k.Finish(nil, nil)) > 0; got != c.wantViolation {
				t.Errorf("%s (reused %v): got violation %v (%v), want %v", c.name, k == reused, got, k.violations, c.wantViolation)
			}
		}
	}
}

// TestRequeueDelayPairing: a requeue is judged against its own pod's last
// return, once; the return of a worker that exits (SyncTerminatedPod) and
// a kubelet restart leave no return to judge against.
func TestRequeueDelayPairing(t *testing.T) {
	p := Periods{Resync: time.Minute, Backoff: 10 * time.Second}
	k := NewRequeue(p).(*requeueCheck)
	end := func(uid string, fn ops.SyncFn) {
		k.Observe(nil, &history.Event{Kind: history.CallbackEnd, Input: ops.SyncEnd{UID: uid, Fn: fn, Outcome: ops.OK}})
	}
	requeue := func(uid string, d time.Duration) {
		k.Observe(nil, &history.Event{Kind: history.Noted, Note: history.Requeued{UID: k8stypes.UID(uid), Delay: d}})
	}
	end("a", ops.SyncPod)
	end("b", ops.SyncTerminatingPod)
	requeue("b", 0)
	requeue("a", time.Minute)
	requeue("a", 10*time.Second) // a second requeue of a follows no return: the backoff
	end("a", ops.SyncTerminatedPod)
	requeue("a", 10*time.Second) // a later record of a (UID reuse)
	end("a", ops.SyncPod)
	k.Observe(nil, &history.Event{Kind: history.Restarted})
	requeue("a", 10*time.Second) // the new process's first requeue of a
	if v := k.Finish(nil, nil); len(v) != 0 {
		t.Errorf("legal requeues reported: %v", v)
	}
	end("b", ops.SyncPod)
	requeue("b", 10*time.Second)
	if v := k.Finish(nil, nil); len(v) != 1 {
		t.Errorf("a successful SyncPod requeued after the backoff period: got %v, want one violation", v)
	}
}

// TestRequeueDelayErrorShapes: after a failed call the delay depends on the
// error's shape as the call's end recorded it (SPEC §1.8 step 5): the
// transient-error backoff for network-not-ready (even beside a
// BackoffError), the time from the requeue to the earliest BackoffError
// expiry clamped to [0, resync], else the backoff period, each jittered
// ×[1, 1.5]. A delay from the wrong base is reported, including bugs that
// look like the right rule: the expiry of the latest BackoffError instead
// of the earliest, the expiry counted from the call's end instead of the
// requeue, no clamp, a negative wait.
func TestRequeueDelayErrorShapes(t *testing.T) {
	p := Periods{Resync: time.Minute, Backoff: 10 * time.Second, Transient: time.Second}
	const now = 100 * time.Second // the requeue
	nnr := ops.ErrShape{NetworkNotReady: true}
	backoff := func(in time.Duration) ops.ErrShape { return ops.ErrShape{Backoff: true, BackoffExpiry: now + in} }
	both := ops.ErrShape{NetworkNotReady: true, Backoff: true, BackoffExpiry: now + 30*time.Second}
	cases := []struct {
		name          string
		err           ops.ErrShape
		endAt         time.Duration // when the call ended
		delay         time.Duration
		wantViolation bool
	}{
		{"network not ready, transient backoff", nnr, now, time.Second, false},
		{"network not ready, jittered to the top", nnr, now, 1500 * time.Millisecond, false},
		{"network not ready, the backoff period (the message missed)", nnr, now, 10 * time.Second, true},
		{"network not ready, jitter beyond ×1.5", nnr, now, 1501 * time.Millisecond, true},
		{"network not ready beside a BackoffError: network wins", both, now, 1200 * time.Millisecond, false},
		{"network not ready beside a BackoffError, the backoff's expiry taken", both, now, 30 * time.Second, true},
		{"backoff within the resync interval", backoff(30 * time.Second), now, 30 * time.Second, false},
		{"backoff within the resync interval, jittered to the top", backoff(30 * time.Second), now, 45 * time.Second, false},
		{"backoff within, the backoff period instead (BackoffError missed)", backoff(30 * time.Second), now, 10 * time.Second, true},
		{"backoff within, jitter beyond ×1.5", backoff(30 * time.Second), now, 45*time.Second + time.Millisecond, true},
		{"backoff of 1 ms: no room to jitter", backoff(time.Millisecond), now, time.Millisecond, false},
		{"backoff of 1 ms, jittered by 2 ms", backoff(time.Millisecond), now, 3 * time.Millisecond, true},
		{"backoff expired: at once", backoff(-5 * time.Second), now, 0, false},
		{"backoff expired, the backoff period instead", backoff(-5 * time.Second), now, 10 * time.Second, true},
		{"backoff expired, a negative wait (no clamp at 0)", backoff(-5 * time.Second), now, -5 * time.Second, true},
		{"backoff beyond the resync interval: clamped", backoff(100 * time.Second), now, time.Minute, false},
		{"backoff beyond, clamped and jittered to the top", backoff(100 * time.Second), now, 90 * time.Second, false},
		{"backoff beyond, not clamped", backoff(100 * time.Second), now, 100 * time.Second, true},
		{"backoff beyond, the backoff period instead", backoff(100 * time.Second), now, 10 * time.Second, true},
		// The end records the earliest of several BackoffErrors (3 s); a
		// worker that took the latest (25 s) waits too long.
		{"several backoffs: the earliest", backoff(3 * time.Second), now, 4 * time.Second, false},
		{"several backoffs: the latest taken", backoff(25 * time.Second), now, 25 * time.Second, false},
		{"several backoffs: the latest taken instead of the earliest", backoff(3 * time.Second), now, 25 * time.Second, true},
		// The call ended 2 s before the requeue: 1 s was left of a 3 s backoff.
		{"expiry counted from the requeue", backoff(time.Second), now - 2*time.Second, 1200 * time.Millisecond, false},
		{"expiry counted from the call's end instead", backoff(time.Second), now - 2*time.Second, 3 * time.Second, true},
		{"plain error: the backoff period", ops.ErrShape{}, now, 12 * time.Second, false},
		{"plain error, the transient backoff instead", ops.ErrShape{}, now, time.Second, true},
	}
	for _, c := range cases {
		k := NewRequeue(p).(*requeueCheck)
		end := ops.SyncEnd{UID: "a", Fn: ops.SyncPod, Outcome: ops.Failed, Err: c.err}
		k.Observe(nil, &history.Event{Kind: history.CallbackEnd, At: c.endAt, Input: end})
		k.Observe(nil, &history.Event{Kind: history.Noted, At: now, Note: history.Requeued{UID: "a", Delay: c.delay}})
		if got := len(k.Finish(nil, nil)) > 0; got != c.wantViolation {
			t.Errorf("%s: got violation %v (%v), want %v", c.name, got, k.violations, c.wantViolation)
		}
	}
}
