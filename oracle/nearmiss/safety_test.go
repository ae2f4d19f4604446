package nearmiss

import (
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/model"
)

// at is ev at virtual time d.
func at(d time.Duration, ev history.Event) history.Event {
	ev.At = d
	return ev
}

func beginGrace(uid string, fn model.SyncFn, grace int64) history.Event {
	ev := begin(uid, fn)
	in := ev.Input.(model.SyncBegin)
	in.Grace = grace
	ev.Input = in
	return ev
}

func cancel(uid string) history.Event {
	return history.Event{Kind: history.Fired, Goroutine: "client/0", Input: model.CancelFired{UID: uid}}
}

// TestSyncBeginKillPending: a SyncPod that begins while an update that
// requests its pod's termination (a kill, a deletion timestamp, a terminal
// phase) is in flight is a near miss of S3, by how far the call got; one
// that begins after the call returned (S3's violation, the safety
// oracle's), before it, for another pod, for a runtime-only kill or an
// update that requests nothing, or a terminating callback, is none.
func TestSyncBeginKillPending(t *testing.T) {
	kill := call(1, "client/0", model.UpdatePod{Type: model.Kill, Pod: model.Pod{UID: "a"}})
	key := func(stage string) string { return "safety/S3/sync-begin-kill-pending/" + stage }
	expect(t, "called", track(kill, begin("a", model.SyncPod)), key("called"))
	expect(t, "applied", track(kill, release("client/0"), begin("a", model.SyncPod), ret(1, 0, nil)), key("applied"))
	expect(t, "another goroutine's release", track(kill, release("worker/a"), begin("a", model.SyncPod)), key("called"))
	deleted := call(1, "client/0", model.UpdatePod{Type: model.Update, Pod: model.Pod{UID: "a", DeletionTimestamp: true}})
	expect(t, "a deletion timestamp", track(deleted, begin("a", model.SyncPod)), key("called"))
	failed := call(1, "client/0", model.UpdatePod{Type: model.Sync, Pod: model.Pod{UID: "a", Phase: model.PhaseFailed}})
	expect(t, "a terminal phase", track(failed, begin("a", model.SyncPod)), key("called"))

	expect(t, "returned first", track(kill, ret(1, 0, nil), begin("a", model.SyncPod)))
	expect(t, "began first", track(begin("a", model.SyncPod), kill))
	expect(t, "another pod", track(kill, begin("b", model.SyncPod)))
	expect(t, "runtime-only", track(call(1, "client/0", model.UpdatePod{Type: model.Kill, RuntimeOnly: true,
		Pod: model.Pod{UID: "a"}}), begin("a", model.SyncPod)))
	expect(t, "a plain update", track(call(1, "client/0", model.UpdatePod{Type: model.Update, Pod: model.Pod{UID: "a"}}),
		begin("a", model.SyncPod)))
	expect(t, "the terminating callback", track(kill, begin("a", model.SyncTerminatingPod)))
	expect(t, "cut by a restart", track(kill, restarted, begin("a", model.SyncPod)), "liveness/L10/open-at-restart/UpdatePod-kill")
}

// TestGraceCutInFlight: an update asking for a smaller grace than the
// SyncTerminatingPod in flight got is a near miss of S11; the same or a
// larger grace, none asked for, no terminating callback in flight, or a
// runtime-only update, is none.
func TestGraceCutInFlight(t *testing.T) {
	override := func(g int64, rt bool) history.Event {
		return call(1, "client/0", model.UpdatePod{Type: model.Kill, RuntimeOnly: rt, Pod: model.Pod{UID: "a"},
			Kill: model.KillOptions{HasGraceOverride: true, GraceOverride: g}})
	}
	deletion := func(g int64) history.Event {
		return call(1, "client/0", model.UpdatePod{Type: model.Update, Pod: model.Pod{UID: "a", DeletionTimestamp: true,
			HasDeletionGrace: true, DeletionGrace: g}})
	}
	const key = "safety/S11/grace-cut-in-flight"
	terminating := beginGrace("a", model.SyncTerminatingPod, 30)
	expect(t, "an override", track(terminating, override(5, false)), key)
	expect(t, "a deletion grace", track(terminating, deletion(29)), key)
	expect(t, "an explicit 0 (gives 1)", track(beginGrace("a", model.SyncTerminatingPod, 2), override(0, false)), key)

	expect(t, "the same grace", track(terminating, override(30, false)))
	expect(t, "0 against 1", track(beginGrace("a", model.SyncTerminatingPod, 1), override(0, false)))
	expect(t, "a larger grace", track(terminating, deletion(60)))
	expect(t, "no grace asked", track(terminating, call(1, "client/0", model.UpdatePod{Type: model.Kill, Pod: model.Pod{UID: "a"}})))
	expect(t, "ended before", track(terminating, end("a", model.SyncTerminatingPod, model.OK, false), override(5, false)))
	expect(t, "another pod", track(beginGrace("b", model.SyncTerminatingPod, 30), override(5, false)))
	expect(t, "runtime-only", track(terminating, override(5, true)))
}

// TestKillLatency: a cancelled SyncPod that returns within the
// kill-latency bound is a near miss by the quarter of the bound it took
// (q0: in the instant of the cancellation); one never cancelled, one
// returning past the bound (the violation), or a cancellation with no
// SyncPod in flight, is none.
func TestKillLatency(t *testing.T) {
	run := func(took time.Duration) []string {
		return track(at(0, begin("a", model.SyncPod)), at(time.Second, cancel("a")),
			at(time.Second+took, end("a", model.SyncPod, model.Canceled, false)))
	}
	expect(t, "at once", run(0), "runtime/kill-latency/q0")
	expect(t, "first quarter", run(2500*time.Millisecond), "runtime/kill-latency/q1")
	expect(t, "last quarter", run(9*time.Second), "runtime/kill-latency/q4")
	expect(t, "at the bound", run(10*time.Second), "runtime/kill-latency/q4")

	expect(t, "past the bound", run(10*time.Second+1))
	expect(t, "not cancelled", track(begin("a", model.SyncPod), end("a", model.SyncPod, model.OK, false)))
	expect(t, "cancelled before it began", track(cancel("a"), begin("a", model.SyncPod), end("a", model.SyncPod, model.OK, false)))
	expect(t, "the next SyncPod", track(begin("a", model.SyncPod), cancel("a"), end("a", model.SyncPod, model.Canceled, false),
		begin("a", model.SyncPod), end("a", model.SyncPod, model.OK, false)), "runtime/kill-latency/q0")
}

// TestStatusWriteRacesAKill: a phase the status manager writes while a
// termination request or a SyncTerminatingPod of the pod is in flight is a
// near miss of the status rules; one written before or after, or of
// another pod, is none.
func TestStatusWriteRacesAKill(t *testing.T) {
	kill := call(1, "client/0", model.UpdatePod{Type: model.Kill, Pod: model.Pod{UID: "a"}})
	written := func(uid string, phase v1.PodPhase) history.Event {
		return note(history.PhaseWritten{UID: types.UID(uid), Phase: phase})
	}
	expect(t, "kill in flight", track(kill, written("a", v1.PodFailed)), "conform/status-write/kill-in-flight/Failed")
	expect(t, "terminating", track(begin("a", model.SyncTerminatingPod), written("a", v1.PodRunning)),
		"conform/status-write/terminating/Running")

	expect(t, "kill returned", track(kill, ret(1, 0, nil), written("a", v1.PodFailed)))
	expect(t, "before the kill", track(written("a", v1.PodFailed), kill))
	expect(t, "termination ended", track(begin("a", model.SyncTerminatingPod), end("a", model.SyncTerminatingPod, model.OK, false),
		written("a", v1.PodRunning)))
	expect(t, "another pod", track(call(1, "client/0", model.UpdatePod{Type: model.Kill, Pod: model.Pod{UID: "b"}}),
		begin("b", model.SyncTerminatingPod), written("a", v1.PodFailed)))
}

// TestWriteAndDeleteAtTheirInstant: a terminal phase written in the
// instant the pod's SyncTerminatingPod succeeded is a near miss of K2, the
// final delete in the instant its SyncTerminatedPod did one of K3; later,
// after a failed callback, a running phase, or a forced delete by the
// reaper, none.
func TestWriteAndDeleteAtTheirInstant(t *testing.T) {
	term := func(o model.Outcome) history.Event { return at(time.Second, end("a", model.SyncTerminatingPod, o, false)) }
	done := func(o model.Outcome) history.Event { return at(time.Second, end("a", model.SyncTerminatedPod, o, false)) }
	write := func(d time.Duration, phase v1.PodPhase) history.Event {
		return at(d, note(history.PhaseWritten{UID: "a", Phase: phase}))
	}
	remove := func(d time.Duration, by string, forced bool) history.Event {
		return at(d, note(history.Removed{UID: "a", By: by, Forced: forced}))
	}
	expect(t, "K2", track(term(model.OK), write(time.Second, v1.PodSucceeded)), "kubelet/K2/terminal-write-at-termination")
	expect(t, "K3", track(done(model.OK), remove(time.Second, "status manager", false)), "kubelet/K3/delete-at-finish")

	expect(t, "K2 later", track(term(model.OK), write(2*time.Second, v1.PodFailed)))
	expect(t, "K2 failed termination", track(term(model.Failed), write(time.Second, v1.PodFailed)))
	expect(t, "K2 running phase", track(term(model.OK), write(time.Second, v1.PodRunning)))
	expect(t, "K2 after a restart", track(term(model.OK), at(time.Second, restarted), write(time.Second, v1.PodFailed)))
	expect(t, "K3 later", track(done(model.OK), remove(2*time.Second, "status manager", false)))
	expect(t, "K3 failed", track(done(model.Failed), remove(time.Second, "status manager", false)))
	expect(t, "K3 the reaper", track(done(model.OK), remove(time.Second, "grace reaper", true)))
}
