package workers

import (
	"errors"
	"fmt"
	"strconv"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
)

// TestUpdatePodParallel is SPEC §5: UID j receives j+1 creates named
// "0".."j", interleaved across UIDs; each UID syncs between 1 and j+1 times
// and the last sync saw name "j" (latest wins; the first is not guaranteed).
// Under the seeded schedules the workers run between the senders' updates,
// so how many syncs each UID gets varies; which name wins never does.
func TestUpdatePodParallel(t *testing.T) {
	const numPods = 20
	for _, parallel := range []bool{false, true} {
		t.Run(fmt.Sprintf("parallel=%v", parallel), func(t *testing.T) {
			runHarness(t, seeded, func(t *testing.T, h *harness) {
				send := func(i, j int) {
					h.w.UpdatePod(UpdatePodOptions{UpdateType: SyncPodCreate, Pod: newPod(strconv.Itoa(j), strconv.Itoa(i))})
				}
				if parallel {
					for j := range numPods {
						h.e.Go("client", func() {
							for i := 0; i <= j; i++ {
								send(i, j)
							}
						})
					}
				} else {
					h.e.Go("client", func() {
						for i := range numPods {
							for j := i; j < numPods; j++ {
								send(i, j)
							}
						}
					})
				}
				h.e.Wait()
				for j := range numPods {
					calls := h.syncer.callsFor(types.UID(strconv.Itoa(j)))
					if n := len(calls); n < 1 || n > j+1 {
						t.Errorf("pod %d: got %d syncs, want between 1 and %d", j, n, j+1)
						continue
					}
					if got, want := calls[len(calls)-1].name, strconv.Itoa(j); got != want {
						t.Errorf("pod %d: got last synced name %q, want %q", j, got, want)
					}
				}
			})
		})
	}
}

// TestUpdatePodDoesNotForgetSyncPodKill is SPEC §5 (B2): create, kill and
// update back to back; the trailing update is absorbed into termination.
// Whether the create is coalesced away depends on the interleaving (never
// under the pinned schedule, where the client runs to completion first);
// both histories are accepted, so every schedule must pass.
func TestUpdatePodDoesNotForgetSyncPodKill(t *testing.T) {
	runHarness(t, seeded, func(t *testing.T, h *harness) {
		const numPods = 20
		h.do(func() {
			for i := range numPods {
				pod := newPod(strconv.Itoa(i), "pod")
				h.w.UpdatePod(UpdatePodOptions{UpdateType: SyncPodCreate, Pod: pod})
				h.w.UpdatePod(UpdatePodOptions{UpdateType: SyncPodKill, Pod: pod})
				h.w.UpdatePod(UpdatePodOptions{UpdateType: SyncPodUpdate, Pod: pod})
			}
		})
		for i := range numPods {
			got := h.history(types.UID(strconv.Itoa(i)))
			if got != "SyncTerminatingPod(30) SyncTerminatedPod" &&
				got != "SyncPod(create) SyncTerminatingPod(30) SyncTerminatedPod" {
				t.Errorf("pod %d: got history %q, want [SyncPod(create)] SyncTerminatingPod(30) SyncTerminatedPod", i, got)
			}
		}
	})
}

// TestUpdatePod is the table of SPEC §5 TestUpdatePod.
func TestUpdatePod(t *testing.T) {
	pod := newPod("a", "pod-a")
	tests := []struct {
		name string
		run  func(t *testing.T, h *harness)
	}{
		{"new pod starts", func(t *testing.T, h *harness) {
			h.create(pod)
			r := h.record("a")
			if !r.started || r.activeUpdate == nil || r.activeUpdate.Pod != pod || r.cancel == nil {
				t.Errorf("got %s, want started with active pod and a cancellation Event", h.state("a"))
			}
			if got, want := h.history("a"), "SyncPod(create)"; got != want {
				t.Errorf("got history %q, want %q", got, want)
			}
		}},
		{"create after kill is dropped and requests restart", func(t *testing.T, h *harness) {
			h.rt.hold("a")
			h.create(pod)
			h.kill(pod)
			h.create(withLabels(pod, map[string]string{"v": "2"}))
			h.release("a")
			s := h.state("a")
			if !s.RestartRequested || !s.Finished || s.GracePeriod != 30 {
				t.Errorf("got %s, want finished, restart requested, grace 30", s)
			}
			for _, c := range h.syncer.callsFor("a") {
				if c.labels != nil {
					t.Errorf("%s: got labels %v, want the original spec", c, c.labels)
				}
			}
		}},
		{"runtime pod next to a pod is ignored", func(t *testing.T, h *harness) {
			h.update(UpdatePodOptions{UpdateType: SyncPodCreate, Pod: pod, RunningPod: &RunningPod{ID: "a"}})
			if s := h.state("a"); s.ObservedRuntime || s.State != "S" {
				t.Errorf("got %s, want a normal start", s)
			}
		}},
		{"deletion timestamp terminates with its grace", func(t *testing.T, h *harness) {
			h.modify(withDeletion(pod, 15))
			s := h.state("a")
			if !s.Deleted || s.GracePeriod != 15 || !s.Finished {
				t.Errorf("got %s, want deleted, grace 15, finished", s)
			}
			if got, want := h.history("a"), "SyncTerminatingPod(15) SyncTerminatedPod"; got != want {
				t.Errorf("got history %q, want %q", got, want)
			}
		}},
		{"evicting kill uses the spec grace", func(t *testing.T, h *harness) {
			h.update(UpdatePodOptions{UpdateType: SyncPodKill, Pod: pod, KillPodOptions: &KillPodOptions{Evict: true}})
			if s := h.state("a"); !s.Evicted || s.GracePeriod != 30 || !s.Finished {
				t.Errorf("got %s, want evicted, grace 30, finished", s)
			}
		}},
		{"terminal pod with failing cache lookup terminates normally", func(t *testing.T, h *harness) {
			h.cache.getErr["a"] = errors.New("not found")
			h.create(withPhase(pod, v1.PodSucceeded))
			if s := h.state("a"); !s.Finished || s.GracePeriod != 30 {
				t.Errorf("got %s, want finished with grace 30", s)
			}
			if got, want := h.history("a"), "SyncTerminatingPod(30) SyncTerminatedPod"; got != want {
				t.Errorf("got history %q, want %q", got, want)
			}
		}},
		{"terminal pod with idle cache starts terminated", func(t *testing.T, h *harness) {
			h.rt.hold("a")
			h.create(withPhase(pod, v1.PodFailed))
			if s := h.state("a"); s.State != "D" || s.Finished {
				t.Errorf("before the worker: got %s, want terminated, not finished", s)
			}
			h.release("a")
			if s := h.state("a"); !s.Finished || s.RestartRequested {
				t.Errorf("after the worker: got %s, want finished without restart", s)
			}
			if got, want := h.history("a"), "SyncTerminatedPod"; got != want {
				t.Errorf("got history %q, want %q", got, want)
			}
		}},
		{"runtime kill of an unseen pod", func(t *testing.T, h *harness) {
			h.rt.hold("a")
			h.update(UpdatePodOptions{UpdateType: SyncPodKill, RunningPod: &RunningPod{ID: "a", Name: "pod-a", Namespace: "ns"}})
			s := h.state("a")
			if !s.TerminationRequested || s.GracePeriod != 1 || !s.Deleted || !s.ObservedRuntime {
				t.Errorf("before the worker: got %s, want terminating, grace 1, deleted, runtime", s)
			}
			h.release("a")
			if _, ok := h.podState("a"); ok || ask(h, func() bool { return h.w.IsPodKnownTerminated("a") }) {
				t.Errorf("after the worker: got a record or KnownTerminated, want neither")
			}
			if got, want := h.history("a"), "SyncTerminatingRuntimePod"; got != want {
				t.Errorf("got history %q, want %q", got, want)
			}
		}},
		{"runtime create records nothing", func(t *testing.T, h *harness) {
			h.update(UpdatePodOptions{UpdateType: SyncPodCreate, RunningPod: &RunningPod{ID: "a"}})
			if _, ok := h.podState("a"); ok || h.history("a") != "" {
				t.Errorf("got a record or a sync, want nothing")
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { runHarness(t, seeded, tt.run) })
	}
}

// TestUpdatePodLatestWins: updates coalesce in the single pending slot and
// the last sync sees the last update (SPEC §1.6).
func TestUpdatePodLatestWins(t *testing.T) {
	runHarness(t, seeded, func(t *testing.T, h *harness) {
		pod := newPod("a", "pod-a")
		h.rt.hold("a")
		h.create(pod)
		for i := range 3 {
			h.modify(withLabels(pod, map[string]string{"v": strconv.Itoa(i)}))
		}
		h.release("a")
		calls := h.syncer.callsFor("a")
		if len(calls) != 1 || calls[0].labels["v"] != "2" || calls[0].updateType != SyncPodUpdate {
			t.Errorf("got %v, want one SyncPod(update) with v=2", calls)
		}
	})
}

// TestUpdatePodForRuntimePod is SPEC §5: a runtime create syncs nothing, a
// runtime kill exactly one SyncTerminatingRuntimePod.
func TestUpdatePodForRuntimePod(t *testing.T) {
	runHarness(t, seeded, func(t *testing.T, h *harness) {
		rp := &RunningPod{ID: "a", Name: "pod-a", Namespace: "ns"}
		h.update(UpdatePodOptions{UpdateType: SyncPodCreate, RunningPod: rp})
		if got := h.history("a"); got != "" {
			t.Errorf("after create: got history %q, want none", got)
		}
		h.update(UpdatePodOptions{UpdateType: SyncPodKill, RunningPod: rp})
		if got, want := h.history("a"), "SyncTerminatingRuntimePod"; got != want {
			t.Errorf("after kill: got history %q, want %q", got, want)
		}
	})
}

// TestUpdatePodForTerminatedRuntimePod is SPEC §5 (B3, #103668): a runtime
// kill for a terminated pod is ignored.
func TestUpdatePodForTerminatedRuntimePod(t *testing.T) {
	runHarness(t, seeded, func(t *testing.T, h *harness) {
		pod := newPod("a", "pod-a")
		h.syncer.block("SyncTerminatedPod", "a")
		h.create(pod)
		h.kill(pod)
		if s := h.state("a"); s.State != "D" {
			t.Fatalf("got %s, want D", s)
		}
		before := h.history("a")
		h.update(UpdatePodOptions{UpdateType: SyncPodKill, RunningPod: &RunningPod{ID: "a"}})
		if s := h.state("a"); s.HasPendingUpdate || s.ObservedRuntime == false {
			t.Errorf("got %s, want the runtime kill observed but not queued", s)
		}
		h.unblock("SyncTerminatedPod", "a")
		if got, want := h.history("a"), before; got != want {
			t.Errorf("got history %q, want %q (no call for the runtime kill)", got, want)
		}
	})
}

// TestRuntimeKillOfKnownPod: a runtime kill for a pod whose spec is known
// becomes a normal kill of that pod (SPEC §1.4 step 3) with the housekeeping
// grace of 1 s; it marks the pod deleted and the record is kept.
func TestRuntimeKillOfKnownPod(t *testing.T) {
	runHarness(t, seeded, func(t *testing.T, h *harness) {
		pod := newPod("a", "pod-a")
		h.create(pod)
		h.update(UpdatePodOptions{UpdateType: SyncPodKill, RunningPod: &RunningPod{ID: "a"},
			KillPodOptions: &KillPodOptions{PodTerminationGracePeriodSecondsOverride: int64Ptr(1)}})
		if got, want := h.history("a"), "SyncPod(create) SyncTerminatingPod(1) SyncTerminatedPod"; got != want {
			t.Errorf("got history %q, want %q", got, want)
		}
		if s := h.state("a"); !s.Finished || !s.ObservedRuntime || !s.Deleted {
			t.Errorf("got %s, want finished, runtime observed, deleted", s)
		}
	})
}

// TestTerminalPhaseTransition is SPEC §5: SyncPod reporting isTerminal moves
// the pod through terminating and terminated with no further update.
func TestTerminalPhaseTransition(t *testing.T) {
	runHarness(t, seeded, func(t *testing.T, h *harness) {
		h.syncer.respond("SyncPod", "a", syncOutcome{isTerminal: true})
		h.create(newPod("a", "pod-a"))
		if got, want := h.history("a"), "SyncPod(create) SyncTerminatingPod(30) SyncTerminatedPod"; got != want {
			t.Errorf("got history %q, want %q", got, want)
		}
		if s := h.state("a"); !s.Finished || s.Deleted || s.Evicted {
			t.Errorf("got %s, want finished, neither deleted nor evicted", s)
		}
	})
}

// TestUpdatePodPanicsWithoutPod: an update with neither Pod nor RunningPod
// is a programmer error. Pinned: one goroutine, nothing to interleave.
func TestUpdatePodPanicsWithoutPod(t *testing.T) {
	runHarness(t, pinned, func(t *testing.T, h *harness) {
		var recovered any
		h.do(func() {
			defer func() { recovered = recover() }()
			h.w.UpdatePod(UpdatePodOptions{UpdateType: SyncPodCreate})
		})
		if recovered == nil {
			t.Errorf("got no panic, want one")
		}
	})
}
