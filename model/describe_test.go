package model

import (
	"strings"
	"testing"

	"github.com/podsim/podsim/model/ops"
)

// TestDescribe pins the trace-line rendering of every operation.
func TestDescribe(t *testing.T) {
	sa := staticPod("a", "web", 3)
	rows := []struct {
		op   ops.Op
		want string
	}{
		{do(upd(ops.Create, pod("a", 1))), "client UpdatePod a create v1"},
		{do(ops.UpdatePod{Type: ops.Kill, Pod: deleting(phase(sa, ops.PhaseFailed), 5), Cache: ops.CacheIdle,
			Kill: ops.KillOptions{Evict: true, GraceOverride: 2, HasGraceOverride: true, CompletionID: 4}}),
			"client UpdatePod a kill v3 static:web_ns deleted deletionGrace=5 Failed evict override=2 completion#4 cache=idle"},
		{do(runtimeKill("b")), "client UpdatePod b kill runtime-pod override=1"},
		{op(skp("a", "b"), ops.KnownPods{kp("a", ops.SyncWork, false, true, true), kp("c", ops.TerminatingWork, true, false, false)}),
			"housekeeping SyncKnownPods [a b] → {a:sync config static, c:terminating orphan}"},
		{op(skp(), ops.KnownPods{}), "housekeeping SyncKnownPods [] → {}"},
		{op(q(ops.CouldHaveRunningContainers, "a"), yes), "query CouldHaveRunningContainers(a) → true"},
		{op(mirror("web_ns"), no), "query IsPodForMirrorPodTerminatingByFullName(web_ns) → false"},
		{op(ops.KillPodNowDone{UID: "a", ID: 4}, no), "killPodNow a completion#4 → completed=false"},
		{do(ops.CompletionFired{UID: "a", ID: 4}), "kill a completion#4 fired"},
		{do(ops.CancelFired{UID: "a"}), "cancel/a fired"},
		{do(beginSync("a", ops.Update, 3)), "worker/a SyncPod begin update v3"},
		{do(beginTerminating("a", 3, 5)), "worker/a SyncTerminatingPod begin v3 grace=5"},
		{do(beginRuntime("a")), "worker/a SyncTerminatingRuntimePod begin"},
		{do(beginTerminated("a", 3)), "worker/a SyncTerminatedPod begin v3"},
		{do(ops.SyncEnd{UID: "a", Fn: ops.SyncPod, IsTerminal: true}), "worker/a SyncPod end ok terminal"},
		{do(end("a", ops.SyncTerminatingPod, ops.Canceled)), "worker/a SyncTerminatingPod end canceled"},
	}
	for _, row := range rows {
		if got := ops.Describe(row.op.Input, row.op.Output); got != row.want {
			t.Errorf("got  %q\nwant %q", got, row.want)
		}
	}
}

// TestDescribeState pins the state rendering: records, static maps,
// obligations.
func TestDescribeState(t *testing.T) {
	sa, sb := staticPod("a", "web", 1), staticPod("b", "web", 1)
	states := mustRun(t, concat(started(sa), []ops.Op{do(upd(ops.Create, sb)), do(upd(ops.Sync, sa)), do(beginSync("a", ops.Sync, 1)),
		do(killOpts(sa, ops.KillOptions{CompletionID: 2, Evict: true}))})...)
	want := "unsynced; a TR static evicted grace=30 pending=kill@v1 flight=SyncPod(begun) notify=[2]; " +
		"b P static grace=- pending=create@v1; static web_ns started=a waiting=[b]; due cancel/a"
	if got := DescribeState(states[0]); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	states = mustRun(t, do(upd(ops.Create, sb)), do(runtimeKill("r")), do(beginRuntime("r")), do(end("r", ops.SyncTerminatingRuntimePod, ops.Failed)))
	want = "unsynced; b P static grace=- pending=create@v1; r T deleted runtime grace=1 pending=- " +
		"flight=SyncTerminatingRuntimePod(returned):error; static web_ns started=- waiting=[b]"
	if got := DescribeState(states[0]); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	s, _ := Step(stateOf(t, "S"), upd(ops.Kill, pod("a", 1)), nil)
	if got := DescribeState(s[0]); !strings.HasSuffix(got, "may-cancel [a]") {
		t.Errorf("got %q, want a may-cancel suffix", got)
	}
}

// TestStepRejectsMalformedOperations: wrong output types are reported, not
// panics (model/check's TestPartitionRejectsMalformedInput: malformed
// porcupine inputs panic with a clear message).
func TestStepRejectsMalformedOperations(t *testing.T) {
	for _, o := range []ops.Op{
		{Input: q(ops.CouldHaveRunningContainers, "a")},
		{Input: ops.KillPodNowDone{UID: "a", ID: 1}},
		{Input: skp(), Output: yes},
		{Input: ops.SyncEnd{UID: "a", Fn: ops.SyncPod}},
	} {
		if _, err := Step(NewState(), o.Input, o.Output); err == nil {
			t.Errorf("%s accepted", ops.Describe(o.Input, o.Output))
		}
	}
}
