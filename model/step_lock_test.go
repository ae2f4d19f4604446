package model

import (
	"strings"
	"testing"

	"github.com/podsim/podsim/model/ops"
)

// TestStepOnEntersTheLockOfUnderLock: stepOn enters the pod lock (no
// obligation may be due) in the cases of the operations underLock names,
// and only there. With an obligation due, every kind of operation is
// stepped: those under the lock are rejected for the obligation, the others
// are not. It fails when a case under the lock leaves enterLock out, or a
// case outside it calls it.
func TestStepOnEntersTheLockOfUnderLock(t *testing.T) {
	inputs := []struct {
		in  ops.Input
		out ops.Output
	}{
		{ops.UpdatePod{Type: ops.Sync, Pod: ops.Pod{UID: "a", Version: 1}}, nil},
		{ops.WorkerStep{UID: "a"}, nil},
		{ops.SyncKnownPods{Desired: []string{"a"}}, ops.KnownPods(nil)},
		{ops.Query{Kind: ops.IsPodKnownTerminated, UID: "a"}, ops.Answer(false)},
		{ops.KillPodNowDone{UID: "a", ID: 1}, ops.Answer(true)},
		{ops.CompletionFired{UID: "a", ID: 1}, nil},
		{ops.CancelFired{UID: "a"}, nil},
		{ops.SyncBegin{UID: "a", Fn: ops.SyncPod, Version: 1}, nil},
		{ops.SyncEnd{UID: "a", Fn: ops.SyncPod}, nil},
		{ops.StatusReadFailed{UID: "a"}, nil},
	}
	locked := 0
	for _, c := range inputs {
		s := InitialState(0)
		s.addDue("a", 1)
		var spare State
		_, err := stepOn(&s, &spare, c.in, c.out)
		held := err != nil && strings.Contains(err.Error(), "must happen first")
		if held != underLock(c.in) {
			t.Errorf("%T with an obligation due: rejected for it %v, under the lock %v (%v)", c.in, held, underLock(c.in), err)
		}
		if held {
			locked++
		}
	}
	if locked != 4 {
		t.Errorf("%d kinds entered the lock, want the 4 underLock names", locked)
	}
}
