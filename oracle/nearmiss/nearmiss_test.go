package nearmiss

import (
	"slices"
	"testing"
	"time"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/model/ops"
)

// keys collects the near misses, as the coverage recorder lists them.
type keys []string

func (k *keys) Near(rule, situation string) {
	if key := rule + "/" + situation; !slices.Contains(*k, key) {
		*k = append(*k, key)
	}
}

func track(evs ...history.Event) []string {
	var k keys
	t := New(&k)
	for _, ev := range evs {
		t.Observe(nil, &ev)
	}
	slices.Sort(k)
	return k
}

func call(id int, g string, in ops.Input) history.Event {
	return history.Event{Kind: history.ClientCall, ID: id, Goroutine: g, Input: in}
}

func ret(id int, at time.Duration, out ops.Output) history.Event {
	return history.Event{Kind: history.ClientReturn, ID: id, At: at, Output: out}
}

func ask(id int, uid string, kind ops.QueryKind) history.Event {
	return call(id, "client/0", ops.Query{Kind: kind, UID: uid})
}

func end(uid string, fn ops.SyncFn, o ops.Outcome, terminal bool) history.Event {
	return history.Event{Kind: history.CallbackEnd, Goroutine: "worker/" + uid,
		Input: ops.SyncEnd{UID: uid, Fn: fn, Outcome: o, IsTerminal: terminal}}
}

func begin(uid string, fn ops.SyncFn) history.Event {
	return history.Event{Kind: history.CallbackBegin, Goroutine: "worker/" + uid, Input: ops.SyncBegin{UID: uid, Fn: fn}}
}

func release(g string) history.Event { return history.Event{Kind: history.LockReleasing, Goroutine: g} }

func note(n history.Note) history.Event { return history.Event{Kind: history.Noted, Note: n} }

var restarted = history.Event{Kind: history.Restarted}

func expect(t *testing.T, name string, got []string, want ...string) {
	t.Helper()
	if !slices.Equal(got, want) && !(len(got) == 0 && len(want) == 0) {
		t.Errorf("%s: near misses %q, want %q", name, got, want)
	}
}

// TestQueryInTransit: a query called and answered between a callback end
// that moves the pod and the pod's next callback is a near miss of
// linearizability, at the stage the worker had reached; a query outside
// that window, of another pod, by full name, across the next callback, or
// after a steady end is none.
func TestQueryInTransit(t *testing.T) {
	const sct = ops.ShouldPodContainersBeTerminating
	terminal := end("a", ops.SyncPod, ops.OK, true)
	key := func(what, stage string) string {
		return "linearize/query-in-transit/ShouldPodContainersBeTerminating/" + what + "/" + stage
	}
	expect(t, "applied", track(terminal, release("worker/a"), ask(1, "a", sct), ret(1, 0, ops.Answer(true))),
		key("SyncPod-terminal", "applied"))
	expect(t, "ended", track(terminal, ask(1, "a", sct), ret(1, 0, ops.Answer(true))), key("SyncPod-terminal", "ended"))
	expect(t, "ended-applied", track(terminal, ask(1, "a", sct), release("worker/a#2"), ret(1, 0, ops.Answer(true))),
		key("SyncPod-terminal", "ended-applied"))
	expect(t, "failed termination", track(end("a", ops.SyncTerminatingPod, ops.Failed, false), ask(1, "a", sct), ret(1, 0, nil)),
		key("SyncTerminatingPod-error", "ended"))
	expect(t, "a query's release is not the worker's", track(terminal, ask(1, "a", sct), release("client/0"), ret(1, 0, nil)),
		key("SyncPod-terminal", "ended"))

	expect(t, "no end yet", track(ask(1, "a", sct), ret(1, 0, nil)))
	expect(t, "steady SyncPod", track(end("a", ops.SyncPod, ops.OK, false), ask(1, "a", sct), ret(1, 0, nil)))
	expect(t, "finished", track(end("a", ops.SyncTerminatedPod, ops.OK, false), ask(1, "a", sct), ret(1, 0, nil)))
	expect(t, "next callback began", track(terminal, begin("a", ops.SyncTerminatingPod), ask(1, "a", sct), ret(1, 0, nil)))
	expect(t, "window closed during the query", track(terminal, ask(1, "a", sct), begin("a", ops.SyncTerminatingPod), ret(1, 0, nil)))
	expect(t, "another window opened during the query", track(end("a", ops.SyncPod, ops.Failed, false), ask(1, "a", sct),
		begin("a", ops.SyncPod), end("a", ops.SyncPod, ops.Failed, false), ret(1, 0, nil)))
	expect(t, "another pod", track(terminal, ask(1, "b", sct), ret(1, 0, nil)))
	expect(t, "by full name", track(terminal, call(1, "client/0", ops.Query{Kind: ops.IsPodForMirrorPodTerminatingByFullName,
		FullName: "default/a"}), ret(1, 0, nil)))
	expect(t, "not answered", track(terminal, ask(1, "a", sct)))
	expect(t, "cut by a restart", track(terminal, ask(1, "a", sct), restarted, ret(1, 0, nil)),
		"liveness/L10/open-at-restart/Query") // L10's, not linearizability's
}

// TestOpenAtRestart: a call in flight when the kubelet restarts is a near
// miss of L10, by its kind; a call that returned before, or began after,
// is none.
func TestOpenAtRestart(t *testing.T) {
	kill := ops.UpdatePod{Type: ops.Kill, Pod: ops.Pod{UID: "a"}}
	create := ops.UpdatePod{Type: ops.Create, Pod: ops.Pod{UID: "b"}}
	rtKill := ops.UpdatePod{Type: ops.Kill, RuntimeOnly: true, Pod: ops.Pod{UID: "c"}}
	expect(t, "open", track(call(1, "client/0", kill), call(2, "client/1", create), call(3, "client/2", rtKill), restarted),
		"liveness/L10/open-at-restart/UpdatePod-create", "liveness/L10/open-at-restart/UpdatePod-kill",
		"liveness/L10/open-at-restart/UpdatePod-rt-kill")
	expect(t, "a query", track(ask(1, "a", ops.IsPodKnownTerminated), restarted), "liveness/L10/open-at-restart/Query")

	expect(t, "returned", track(call(1, "client/0", kill), ret(1, 0, nil), restarted))
	expect(t, "no restart", track(call(1, "client/0", kill)))
	expect(t, "after the restart", track(restarted, call(1, "client/0", kill)))
	expect(t, "open at the first restart only", track(call(1, "client/0", kill), restarted, restarted),
		"liveness/L10/open-at-restart/UpdatePod-kill")
}

// TestWorkerAfterShutdown: a worker goroutine started by the pod workers
// of a process that already restarted is a near miss of L10; one started
// by the current process is none.
func TestWorkerAfterShutdown(t *testing.T) {
	started := func(kubelet int) history.Event {
		return note(history.WorkerStarted{Goroutine: "worker/a", UID: "a", Kubelet: kubelet})
	}
	expect(t, "stopped process", track(restarted, started(0)), "liveness/L10/worker-after-shutdown")
	expect(t, "before the restart", track(started(0), restarted))
	expect(t, "current process", track(started(0), restarted, started(1)))
}

// TestDrainWaited: a drain that had to wait for workers, all of which
// ended, is a near miss of L10 by the quarter of its bound it took; one
// that did not wait, or left a worker running (the violation), is none.
func TestDrainWaited(t *testing.T) {
	drain := func(waited time.Duration, stuck ...history.StuckWorker) history.Event {
		return note(history.WorkerDrainEnded{Bound: 4 * time.Second, Waited: waited, Stuck: stuck})
	}
	expect(t, "first quarter", track(drain(time.Second)), "liveness/L10/drain-waited/q1")
	expect(t, "just past it", track(drain(time.Second+1)), "liveness/L10/drain-waited/q2")
	expect(t, "the whole bound", track(drain(4*time.Second)), "liveness/L10/drain-waited/q4")
	expect(t, "no wait", track(drain(0)))
	expect(t, "a worker still running", track(drain(4*time.Second, history.StuckWorker{Goroutine: "worker/a"})))
}

// TestKillNowLatency: a killPodNow wait that returns "terminated" within
// its timeout is a near miss of R2 by the quarter of the timeout it took,
// one that times out exactly at it another; the violations (too late, or
// giving up early) and a wait of no kill of the same goroutine are none.
func TestKillNowLatency(t *testing.T) {
	kill := call(1, "evict/0", ops.UpdatePod{Type: ops.Kill, Pod: ops.Pod{UID: "a", SpecGrace: 30},
		Kill: ops.KillOptions{CompletionID: 3, HasGraceOverride: true, GraceOverride: 2}}) // timeout 10 s
	wait := call(2, "evict/0", ops.KillPodNowDone{UID: "a", ID: 3})
	done := func(at time.Duration, terminated bool) []history.Event {
		return []history.Event{kill, ret(1, 0, nil), wait, ret(2, at, ops.Answer(terminated))}
	}
	expect(t, "quick", track(done(2*time.Second, true)...), "runtime/R2-killnow/terminated-q1")
	expect(t, "close to the timeout", track(done(9*time.Second, true)...), "runtime/R2-killnow/terminated-q4")
	expect(t, "at the timeout", track(done(10*time.Second, true)...), "runtime/R2-killnow/terminated-q4")
	expect(t, "timed out", track(done(10*time.Second, false)...), "runtime/R2-killnow/timed-out")
	spec := call(1, "evict/0", ops.UpdatePod{Type: ops.Kill, Pod: ops.Pod{UID: "a", SpecGrace: 30},
		Kill: ops.KillOptions{CompletionID: 3}}) // the spec's 30 s: timeout 45 s
	expect(t, "the spec's grace", track(spec, ret(1, 0, nil), wait, ret(2, 40*time.Second, ops.Answer(true))),
		"runtime/R2-killnow/terminated-q4")

	expect(t, "too late", track(done(11*time.Second, true)...))
	expect(t, "gave up early", track(done(5*time.Second, false)...))
	expect(t, "another goroutine's kill", track(kill, ret(1, 0, nil), call(2, "client/0", ops.KillPodNowDone{UID: "a", ID: 3}),
		ret(2, time.Second, ops.Answer(true))))
	expect(t, "another completion", track(kill, ret(1, 0, nil), call(2, "evict/0", ops.KillPodNowDone{UID: "a", ID: 4}),
		ret(2, time.Second, ops.Answer(true))))
}

// askingSink is a sink that can name the calls after Shutdown by tuple.
type askingSink struct {
	keys
	asked bool
}

func (s *askingSink) StoppedCalls() { s.asked = true }

// TestNewAsksForStoppedCalls: New asks a sink that names the calls after
// Shutdown by the pod's tuple (the coverage tracker) to do so.
func TestNewAsksForStoppedCalls(t *testing.T) {
	var s askingSink
	New(&s)
	if !s.asked {
		t.Error("New did not ask its sink for the calls after Shutdown")
	}
}
