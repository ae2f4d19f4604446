package workers

import (
	"fmt"
	"strconv"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
)

// queryRow is the seven §1.14 queries of one UID, in table order:
// KnownTerminated, CouldHaveRunning, BeFinished, TermRequested,
// ContainersBeTerminating, RuntimeBeRemoved, ContentBeRemoved.
type queryRow [7]bool

func (r queryRow) String() string {
	out := ""
	for _, b := range r {
		out += map[bool]string{true: "T", false: "F"}[b]
	}
	return out
}

// queries asks the seven queries of uid in one client goroutine.
func (h *harness) queries(uid types.UID) queryRow {
	return ask(h, func() queryRow { return queries(h.w, uid) })
}

func queries(w *PodWorkers, uid types.UID) queryRow {
	return queryRow{
		w.IsPodKnownTerminated(uid), w.CouldHaveRunningContainers(uid), w.ShouldPodBeFinished(uid),
		w.IsPodTerminationRequested(uid), w.ShouldPodContainersBeTerminating(uid),
		w.ShouldPodRuntimeBeRemoved(uid), w.ShouldPodContentBeRemoved(uid),
	}
}

// TestSyncKnownPods is SPEC §5.
func TestSyncKnownPods(t *testing.T) {
	runHarness(t, seeded, func(t *testing.T, h *harness) {
		const numPods = 20
		pod := func(i int) *v1.Pod { return newPod(strconv.Itoa(i), "pod") }
		h.do(func() {
			for i := range numPods {
				h.w.UpdatePod(UpdatePodOptions{UpdateType: SyncPodUpdate, Pod: pod(i)})
			}
			for i := range numPods {
				if i == 2 || i == 14 {
					continue
				}
				p := pod(i)
				if i%2 == 0 {
					p = withDeletion(p, 30)
				}
				h.w.UpdatePod(UpdatePodOptions{UpdateType: SyncPodKill, Pod: p})
			}
		})
		checks := []struct {
			uid  types.UID
			want string
		}{
			{"0", "TFTTTTT"}, {"1", "TFTTTTF"}, {"2", "FTFFFFF"}, {"abc", "FTFFFFF"},
		}
		for _, c := range checks {
			if got := h.queries(c.uid).String(); got != c.want {
				t.Errorf("before sync: pod %s: got %s, want %s", c.uid, got, c.want)
			}
		}

		desired := []*v1.Pod{pod(2), pod(14)}
		if got := fmt.Sprint(h.syncKnown(desired)); got != "[{14 {sync false true false}} {2 {sync false true false}}]" {
			t.Errorf("got %s, want only 2 and 14, syncing with config", got)
		}
		if got := len(h.states()); got != 2 {
			t.Errorf("got %d records, want 2", got)
		}
		if ask(h, func() bool { return h.w.IsPodTerminationRequested("2") }) {
			t.Errorf("pod 2: got termination requested, want not")
		}
		if got, want := h.queries("abc").String(), "FFTFTTT"; got != want {
			t.Errorf("after sync: abc: got %s, want %s", got, want)
		}

		h.syncKnown(nil)
		for _, s := range h.states() {
			if !s.Finished || s.HasWorker || !s.Deleted {
				t.Errorf("after SyncKnownPods(nil): got %s, want finished, deleted, no worker", s)
			}
		}
		if got := len(h.states()); got != 2 {
			t.Errorf("got %d records, want 2 retained", got)
		}
		before := len(h.syncer.allCalls())
		h.kill(pod(2))
		h.kill(pod(14))
		if got := len(h.syncer.allCalls()); got != before {
			t.Errorf("got %d calls after killing finished pods, want %d", got, before)
		}
		h.syncKnown(nil)
		if got := len(h.states()); got != 0 {
			t.Errorf("got %d records, want all purged", got)
		}
	})
}

// Test_removeTerminatedWorker is SPEC §5, on hand-built records. Pinned: one
// goroutine, nothing to interleave.
func Test_removeTerminatedWorker(t *testing.T) {
	active := func() *UpdatePodOptions { return &UpdatePodOptions{Pod: newPod("a", "pod-a")} }
	tests := []struct {
		name        string
		status      podSyncStatus
		orphan      bool
		wantRemoved bool
		// wantPending: "none", "replay" (copy of active) or "kept".
		wantPending string
		wantSignal  bool
		// wantGrace is checked when non-zero.
		wantGrace int64
	}{
		{name: "finished", status: podSyncStatus{finished: true, terminated: true, terminationRequested: true},
			orphan: true, wantRemoved: true, wantPending: "none"},
		{name: "finished restart, not orphan", status: podSyncStatus{finished: true, restartRequested: true},
			wantRemoved: true, wantPending: "none"},
		{name: "unfinished, not orphan", status: podSyncStatus{terminationRequested: true, restartRequested: true},
			wantPending: "none"},
		{name: "orphan never started", status: podSyncStatus{},
			orphan: true, wantRemoved: true, wantPending: "none"},
		{name: "orphan started, no active update", status: podSyncStatus{started: true},
			orphan: true, wantPending: "none", wantGrace: 1},
		{name: "orphan started with active update", status: podSyncStatus{started: true, activeUpdate: active()},
			orphan: true, wantPending: "replay", wantSignal: true, wantGrace: 30},
		{name: "orphan terminating", status: podSyncStatus{started: true, terminationRequested: true, activeUpdate: active()},
			orphan: true, wantPending: "replay", wantSignal: true},
		{name: "orphan terminated", status: podSyncStatus{started: true, terminationRequested: true, terminated: true, activeUpdate: active()},
			orphan: true, wantPending: "replay", wantSignal: true},
		{name: "orphan runtime pod", status: podSyncStatus{observedRuntime: true, terminationRequested: true, activeUpdate: active()},
			orphan: true, wantPending: "replay", wantSignal: true},
		{name: "orphan with pending update", status: podSyncStatus{started: true, terminationRequested: true,
			activeUpdate: active(), pendingUpdate: &UpdatePodOptions{UpdateType: SyncPodKill, Pod: newPod("a", "pending")}},
			orphan: true, wantPending: "kept"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			forEachEnv(t, pinned, func(t *testing.T, e env) {
				w := newBareWorkers(t, e.Runtime())
				status := tt.status
				status.uid, status.fullname = "a", "pod-a_ns"
				pendingBefore := status.pendingUpdate
				updates := w.rt.NewSignal("updates/a")
				status.updates = updates
				w.records.set("a", &status)
				w.startedStaticPodsByFullname["pod-a_ns"] = "a"

				var removed, live, signalled bool
				e.Do("client", func() {
					removed = w.removeTerminatedWorkerLocked(&status, tt.orphan)
					if removed {
						live = updates.Wait() // returns at once: closed, or pending
					} else {
						signalled = updates.TryWait()
					}
				})
				if removed != tt.wantRemoved {
					t.Fatalf("got removed %v, want %v", removed, tt.wantRemoved)
				}
				checkRemoved(t, w, &status, tt.wantRemoved, tt.orphan, tt.wantGrace)
				checkPending(t, &status, pendingBefore, tt.wantPending)
				if tt.wantRemoved {
					if live {
						t.Errorf("got a live signal after purge, want it closed")
					}
					return
				}
				if signalled != tt.wantSignal {
					t.Errorf("got signalled %v, want %v", signalled, tt.wantSignal)
				}
			})
		})
	}
}

// checkRemoved checks the maps after removeTerminatedWorker and, for a kept
// orphan, that it is being driven to termination.
func checkRemoved(t *testing.T, w *PodWorkers, status *podSyncStatus, removed, orphan bool, wantGrace int64) {
	t.Helper()
	if _, kept := w.records.get("a"); kept == removed {
		t.Errorf("got record kept %v, want %v", kept, !removed)
	}
	if _, held := w.startedStaticPodsByFullname["pod-a_ns"]; held == removed {
		t.Errorf("got static name held %v, want %v", held, !removed)
	}
	if removed {
		return
	}
	if orphan && (!status.deleted || !status.terminationRequested) {
		t.Errorf("got %s, want deleted and terminating", snapshotOf(status))
	}
	if wantGrace != 0 && status.gracePeriod != wantGrace {
		t.Errorf("got grace %d, want %d", status.gracePeriod, wantGrace)
	}
}

func checkPending(t *testing.T, status *podSyncStatus, before *UpdatePodOptions, want string) {
	t.Helper()
	switch want {
	case "none":
		if status.pendingUpdate != nil {
			t.Errorf("got a pending update, want none")
		}
	case "replay":
		if status.pendingUpdate == nil || status.pendingUpdate == status.activeUpdate ||
			status.pendingUpdate.Pod != status.activeUpdate.Pod || !status.working {
			t.Errorf("got pending %v (working %v), want a copy of the active update and working", status.pendingUpdate, status.working)
		}
	case "kept":
		if status.pendingUpdate != before {
			t.Errorf("got pending %v, want the existing one unchanged", status.pendingUpdate)
		}
	}
}

// TestOrphanDrivenToCompletion (B11, #113145): a force-deleted pod whose
// terminating sync failed is re-driven by SyncKnownPods, with no config
// update ever arriving.
func TestOrphanDrivenToCompletion(t *testing.T) {
	runHarness(t, seeded, func(t *testing.T, h *harness) {
		pod := newPod("a", "pod-a")
		h.create(pod)
		h.syncer.respond("SyncTerminatingPod", "a", syncOutcome{err: fmt.Errorf("cri")})
		h.kill(pod)
		if s := h.state("a"); s.State != "T" {
			t.Fatalf("got %s, want T after the failed terminating sync", s)
		}
		h.syncKnown(nil)
		if s := h.state("a"); !s.Finished {
			t.Errorf("got %s, want finished", s)
		}
	})
}
