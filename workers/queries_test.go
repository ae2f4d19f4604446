package workers

import (
	"testing"

	v1 "k8s.io/api/core/v1"
)

// TestQueryTable is the table of SPEC §1.14 for every state, read as
// KnownTerminated, CouldHaveRunning, BeFinished, TermRequested,
// ContainersBeTerminating, RuntimeBeRemoved, ContentBeRemoved. The last rows
// differ from upstream by G3: unstarted cleanup acknowledges termination.
func TestQueryTable(t *testing.T) {
	pod := newPod("a", "pod-a")
	static := newStaticPod("a", "stable")
	evict := UpdatePodOptions{UpdateType: SyncPodKill, Pod: pod, KillPodOptions: &KillPodOptions{Evict: true}}
	tests := []struct {
		name      string
		setup     func(h *harness)
		wantState string
		want      string
	}{
		{"U0 unknown before sync", func(h *harness) {}, "", "FTFFFFF"},
		{"U1 unknown after sync", func(h *harness) { h.syncKnown(nil) }, "", "FFTFTTT"},
		{"P held worker", func(h *harness) { h.rt.hold("a"); h.create(pod) }, "P", "FTFFFFF"},
		{"P static waiting", func(h *harness) {
			h.create(newStaticPod("b", "stable"))
			h.create(static)
		}, "P", "FTFFFFF"},
		{"S", func(h *harness) { h.create(pod) }, "S", "FTFFFFF"},
		{"TR", func(h *harness) {
			h.syncer.block("SyncPod", "a")
			h.create(pod)
			h.kill(pod)
		}, "TR", "FTFTFFF"},
		{"TR evicted", func(h *harness) {
			h.syncer.block("SyncPod", "a")
			h.create(pod)
			h.update(evict)
		}, "TR", "FTFTFFT"},
		{"T", func(h *harness) { h.syncer.block("SyncTerminatingPod", "a"); h.kill(pod) }, "T", "FTFTTFF"},
		{"T evicted", func(h *harness) { h.syncer.block("SyncTerminatingPod", "a"); h.update(evict) }, "T", "FTFTTFT"},
		{"T runtime only", func(h *harness) {
			h.syncer.block("SyncTerminatingRuntimePod", "a")
			h.update(UpdatePodOptions{UpdateType: SyncPodKill, RunningPod: &RunningPod{ID: "a"}})
		}, "T", "FTFTTFF"},
		{"D", func(h *harness) { h.syncer.block("SyncTerminatedPod", "a"); h.kill(pod) }, "D", "TFFTTTF"},
		{"D deleted", func(h *harness) {
			h.syncer.block("SyncTerminatedPod", "a")
			h.modify(withDeletion(pod, 5))
		}, "D", "TFFTTTT"},
		{"D restart shortcut", func(h *harness) { h.rt.hold("a"); h.create(withPhase(pod, v1.PodSucceeded)) }, "D", "TFFTTTF"},
		{"F", func(h *harness) { h.kill(pod) }, "F", "TFTTTTF"},
		{"F evicted", func(h *harness) { h.update(evict) }, "F", "TFTTTTT"},
		{"F deleted", func(h *harness) { h.modify(withDeletion(pod, 5)) }, "F", "TFTTTTT"},
		{"static cleaned up before start", func(h *harness) {
			h.create(newStaticPod("b", "stable"))
			h.create(static)
			h.kill(static)
		}, "F", "TFTTTTF"},
		{"static cleaned up before start, deleted", func(h *harness) {
			h.create(newStaticPod("b", "stable"))
			h.create(static)
			h.modify(withDeletion(static, 5))
		}, "F", "TFTTTTT"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			runHarness(t, seeded, func(t *testing.T, h *harness) {
				tt.setup(h)
				snap, known := h.podState("a")
				if known != (tt.wantState != "") || snap.State != tt.wantState {
					t.Errorf("got state %q (known %v), want %q", snap.State, known, tt.wantState)
				}
				if got := h.queries("a").String(); got != tt.want {
					t.Errorf("got %s, want %s (%s)", got, tt.want, snap)
				}
				locked := ask(h, func() queryRow {
					h.w.podLock.Lock()
					defer h.w.podLock.Unlock()
					answers, known := h.w.AnswersLocked("a")
					if known != (tt.wantState != "") {
						t.Errorf("AnswersLocked: known %v, want %v", known, tt.wantState != "")
					}
					return answers
				})
				if got := locked.String(); got != tt.want {
					t.Errorf("AnswersLocked: got %s, want %s (%s)", got, tt.want, snap)
				}
			})
		})
	}
}

// TestPodsSynced: podsSynced becomes true at the first SyncKnownPods and
// stays. Pinned: no worker ever runs, nothing to interleave.
func TestPodsSynced(t *testing.T) {
	runHarness(t, pinned, func(t *testing.T, h *harness) {
		if ask(h, h.w.PodsSynced) {
			t.Errorf("got synced before SyncKnownPods")
		}
		h.syncKnown(nil)
		h.syncKnown([]*v1.Pod{newPod("a", "pod-a")})
		if !ask(h, h.w.PodsSynced) {
			t.Errorf("got not synced after SyncKnownPods")
		}
	})
}
