package workers

import (
	"sync"
	"testing"
)

// countingEvent counts Fire calls, to prove "fired exactly once".
type countingEvent struct {
	Event
	e     env
	mu    sync.Mutex
	fires int
}

func (e *countingEvent) Fire() {
	e.mu.Lock()
	e.fires++
	e.mu.Unlock()
	e.Event.Fire()
}

// count lets every goroutine run until all are blocked, then counts.
func (e *countingEvent) count() int {
	e.e.Wait()
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.fires
}

func (h *harness) completion() *countingEvent {
	return &countingEvent{Event: h.rt.NewEvent("completed"), e: h.e}
}

func (h *harness) killWith(uid string, completed Event) {
	h.update(UpdatePodOptions{UpdateType: SyncPodKill, Pod: newPod(uid, "pod-"+uid), KillPodOptions: &KillPodOptions{CompletedCh: completed}})
}

// TestG1CompletionFiresForFinishedPod: a kill arriving after the pod
// finished completes at once (SPEC §1.17-1).
func TestG1CompletionFiresForFinishedPod(t *testing.T) {
	runHarness(t, seeded, func(t *testing.T, h *harness) {
		pod := newPod("a", "pod-a")
		h.create(pod)
		h.kill(pod)
		done := h.completion()
		h.killWith("a", done)
		if got := done.count(); got != 1 {
			t.Errorf("got %d fires, want 1", got)
		}
		if c := h.killNow(pod, false, nil, nil).get(); !c.done || c.err != nil || c.took != 0 {
			t.Errorf("KillPodNow on a finished pod: got (returned %v, %v after %s), want nil at once", c.done, c.err, c.took)
		}
	})
}

// TestG2CompletionFiresOnUnstartedCleanup: a static pod killed while it
// waits for its full name finishes with no sync call, and its kill
// completes (SPEC §1.17-2).
func TestG2CompletionFiresOnUnstartedCleanup(t *testing.T) {
	runHarness(t, seeded, func(t *testing.T, h *harness) {
		h.create(newStaticPod("b", "stable"))
		waiter := newStaticPod("a", "stable")
		h.create(waiter)
		done := h.completion()
		h.update(UpdatePodOptions{UpdateType: SyncPodKill, Pod: waiter, KillPodOptions: &KillPodOptions{CompletedCh: done}})
		if got := done.count(); got != 1 || h.history("a") != "" {
			t.Errorf("got %d fires and history %q, want 1 fire and no call", got, h.history("a"))
		}
	})
}

// TestG2CompletionFiresOnUnstartedOrphanPurge: a kill of a pod whose worker
// never woke, then SyncKnownPods(nil): the record is purged and the kill
// completes (SPEC §1.17-2).
func TestG2CompletionFiresOnUnstartedOrphanPurge(t *testing.T) {
	runHarness(t, seeded, func(t *testing.T, h *harness) {
		h.rt.hold("a")
		done := h.completion()
		h.killWith("a", done)
		if got := done.count(); got != 0 {
			t.Fatalf("got %d fires before the purge, want 0", got)
		}
		h.syncKnown(nil)
		if _, ok := h.podState("a"); ok {
			t.Errorf("got a record, want it purged")
		}
		if got := done.count(); got != 1 {
			t.Errorf("got %d fires, want 1", got)
		}
		h.release("a")
		if got := h.history("a"); got != "" {
			t.Errorf("got history %q, want none", got)
		}
	})
}

// TestCompletionFiresOnRuntimePodDeletion: a runtime kill that carries a
// completion Event completes when the record is deleted.
func TestCompletionFiresOnRuntimePodDeletion(t *testing.T) {
	runHarness(t, seeded, func(t *testing.T, h *harness) {
		done := h.completion()
		h.update(UpdatePodOptions{UpdateType: SyncPodKill, RunningPod: &RunningPod{ID: "a"},
			KillPodOptions: &KillPodOptions{CompletedCh: done}})
		if got := done.count(); got != 1 {
			t.Errorf("got %d fires, want 1", got)
		}
	})
}

// TestCompletionTiming is S14: fired after termination (never before), at
// once for a pod that is not terminating or already terminated, and kept
// (never dropped) by a create that only requests a restart.
func TestCompletionTiming(t *testing.T) {
	runHarness(t, seeded, func(t *testing.T, h *harness) {
		pod := newPod("a", "pod-a")
		h.create(pod)
		notTerminating := h.completion()
		h.update(UpdatePodOptions{UpdateType: SyncPodUpdate, Pod: pod, KillPodOptions: &KillPodOptions{CompletedCh: notTerminating}})
		if got := notTerminating.count(); got != 1 {
			t.Errorf("not terminating: got %d fires, want 1", got)
		}

		h.syncer.block("SyncTerminatingPod", "a")
		h.syncer.block("SyncTerminatedPod", "a")
		first, second, viaCreate := h.completion(), h.completion(), h.completion()
		h.killWith("a", first)
		h.killWith("a", second)
		h.update(UpdatePodOptions{UpdateType: SyncPodCreate, Pod: pod, KillPodOptions: &KillPodOptions{CompletedCh: viaCreate}})
		for _, ev := range []*countingEvent{first, second, viaCreate} {
			if got := ev.count(); got != 0 {
				t.Errorf("while terminating: got %d fires, want 0", got)
			}
		}
		h.unblock("SyncTerminatingPod", "a")
		for _, ev := range []*countingEvent{first, second, viaCreate} {
			if got := ev.count(); got != 1 {
				t.Errorf("after termination: got %d fires, want 1", got)
			}
		}
		terminated := h.completion()
		h.killWith("a", terminated)
		if got := terminated.count(); got != 1 {
			t.Errorf("terminated: got %d fires, want 1", got)
		}
		runtimeKill := h.completion()
		h.update(UpdatePodOptions{UpdateType: SyncPodKill, RunningPod: &RunningPod{ID: "a"}, KillPodOptions: &KillPodOptions{CompletedCh: runtimeKill}})
		if got := runtimeKill.count(); got != 1 {
			t.Errorf("ignored runtime kill: got %d fires, want 1", got)
		}
	})
}

// TestNonKillRuntimeUpdateCompletion: a dropped non-kill runtime update
// still settles its completion Event: at once for an unknown pod, on
// termination for a terminating one.
func TestNonKillRuntimeUpdateCompletion(t *testing.T) {
	runHarness(t, seeded, func(t *testing.T, h *harness) {
		unknown := h.completion()
		h.update(UpdatePodOptions{UpdateType: SyncPodSync, RunningPod: &RunningPod{ID: "b"}, KillPodOptions: &KillPodOptions{CompletedCh: unknown}})
		if got := unknown.count(); got != 1 {
			t.Errorf("unknown pod: got %d fires, want 1", got)
		}
		pod := newPod("a", "pod-a")
		h.syncer.block("SyncTerminatingPod", "a")
		h.kill(pod)
		terminating := h.completion()
		h.update(UpdatePodOptions{UpdateType: SyncPodSync, RunningPod: &RunningPod{ID: "a"}, KillPodOptions: &KillPodOptions{CompletedCh: terminating}})
		if got := terminating.count(); got != 0 {
			t.Errorf("terminating pod: got %d fires before termination, want 0", got)
		}
		h.unblock("SyncTerminatingPod", "a")
		if got := terminating.count(); got != 1 {
			t.Errorf("terminating pod: got %d fires after termination, want 1", got)
		}
	})
}

// TestG3UnstartedCleanupAcknowledges: after unstarted cleanup,
// ContainersBeTerminating agrees with RuntimeBeRemoved (SPEC §1.17-3).
func TestG3UnstartedCleanupAcknowledges(t *testing.T) {
	runHarness(t, seeded, func(t *testing.T, h *harness) {
		h.create(newStaticPod("b", "stable"))
		waiter := newStaticPod("a", "stable")
		h.create(waiter)
		h.kill(waiter)
		removed := ask(h, func() bool { return h.w.ShouldPodRuntimeBeRemoved("a") })
		terminating := ask(h, func() bool { return h.w.ShouldPodContainersBeTerminating("a") })
		if !removed || !terminating {
			t.Errorf("got RuntimeBeRemoved %v, ContainersBeTerminating %v, want both true", removed, terminating)
		}
	})
}

// TestG4OrphanDrivingCancels: SyncKnownPods starting termination of a
// started orphan cancels its in-flight SyncPod, as a kill does (SPEC
// §1.17-4); no SyncPod begins afterwards.
func TestG4OrphanDrivingCancels(t *testing.T) {
	runHarness(t, seeded, func(t *testing.T, h *harness) {
		h.syncer.block("SyncPod", "a")
		h.syncer.respond("SyncPod", "a", syncOutcome{err: ErrCanceled})
		h.create(newPod("a", "pod-a"))
		inFlight := h.syncer.callsFor("a")[0]
		if h.fired(inFlight.cancel) {
			t.Fatalf("got the SyncPod cancelled early")
		}
		h.syncKnown(nil)
		if !h.fired(inFlight.cancel) {
			t.Errorf("got the in-flight SyncPod not cancelled, want cancelled")
		}
		h.unblock("SyncPod", "a")
		if got, want := h.history("a"), "SyncPod(create) SyncTerminatingPod(30) SyncTerminatedPod"; got != want {
			t.Errorf("got history %q, want %q", got, want)
		}
	})
}

// TestKillDuringCreate (B16): a kill while SyncPod runs cancels it; the
// termination starts only after SyncPod returns, and no SyncPod follows.
func TestKillDuringCreate(t *testing.T) {
	runHarness(t, seeded, func(t *testing.T, h *harness) {
		pod := newPod("a", "pod-a")
		h.syncer.block("SyncPod", "a")
		h.create(pod)
		h.kill(pod)
		h.modify(pod)
		if got := h.history("a"); got != "SyncPod(create)" {
			t.Fatalf("got history %q, want only the in-flight SyncPod", got)
		}
		if !h.fired(h.syncer.callsFor("a")[0].cancel) {
			t.Errorf("got the in-flight SyncPod not cancelled")
		}
		h.unblock("SyncPod", "a")
		if got, want := h.history("a"), "SyncPod(create) SyncTerminatingPod(30) SyncTerminatedPod"; got != want {
			t.Errorf("got history %q, want %q", got, want)
		}
	})
}
