package workers

import (
	"errors"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/types"
)

// invariantBreak breaks one invariant (want) on a healthy running record
// of UID "a" (healthyRecord), or in the static-pod maps.
type invariantBreak struct {
	name   string
	mutate func(w *PodWorkers, s *podSyncStatus)
	want   string
}

// healthyRecord is a started, running record of uid, as the invariant
// tests break it.
func healthyRecord(w *PodWorkers, uid types.UID) *podSyncStatus {
	return &podSyncStatus{uid: uid, fullname: "pod-" + string(uid) + "_ns", started: true,
		activeUpdate: &UpdatePodOptions{Pod: newPod(string(uid), "pod-"+string(uid))}, updates: w.rt.NewSignal("updates/" + string(uid))}
}

// invariantBreaks are one break of each invariant.
func invariantBreaks() []invariantBreak {
	static := newStaticPod("a", "stable")
	return []invariantBreak{
		{"terminated without request", func(_ *PodWorkers, s *podSyncStatus) { s.terminated = true }, "terminated-implies-requested"},
		{"acknowledged without request", func(_ *PodWorkers, s *podSyncStatus) { s.startedTerminating = true }, "acknowledged-implies-requested"},
		{"G3 lattice", func(_ *PodWorkers, s *podSyncStatus) {
			s.terminationRequested, s.gracePeriod, s.terminated = true, 1, true
		}, "terminated-implies-acknowledged"},
		{"finished not terminated", func(_ *PodWorkers, s *podSyncStatus) { s.finished = true }, "finished-implies-terminated"},
		{"finished but live", func(_ *PodWorkers, s *podSyncStatus) {
			s.terminationRequested, s.gracePeriod, s.startedTerminating, s.terminated, s.finished = true, 1, true, true, true
		}, "finished-implies-idle"},
		{"terminated with open kill", func(w *PodWorkers, s *podSyncStatus) {
			s.terminationRequested, s.gracePeriod, s.startedTerminating, s.terminated = true, 1, true, true
			s.notifyPostTerminating = []Event{w.rt.NewEvent("completed")}
		}, "terminated-implies-kills-completed"},
		{"no grace", func(_ *PodWorkers, s *podSyncStatus) { s.terminationRequested = true }, "grace-set-once-terminating"},
		{"evicted only", func(_ *PodWorkers, s *podSyncStatus) { s.evicted = true }, "evicted-implies-requested"},
		{"restart only", func(_ *PodWorkers, s *podSyncStatus) { s.restartRequested = true }, "restart-implies-requested"},
		{"no worker", func(_ *PodWorkers, s *podSyncStatus) { s.updates = nil }, "live-record-has-worker"},
		{"in flight idle", func(_ *PodWorkers, s *podSyncStatus) { s.inFlight = true }, "in-flight-implies-working"},
		{"lost pending", func(_ *PodWorkers, s *podSyncStatus) {
			s.pendingUpdate = &UpdatePodOptions{Pod: newPod("a", "pod-a")}
		}, "pending-implies-working"},
		{"SyncPod after acknowledgement", func(_ *PodWorkers, s *podSyncStatus) {
			s.terminationRequested, s.gracePeriod, s.startedTerminating = true, 1, true
			s.working, s.inFlight, s.inFlightWork = true, true, SyncPodWork
		}, "acknowledged-implies-no-syncpod"},
		{"G4 uncancelled SyncPod", func(w *PodWorkers, s *podSyncStatus) {
			s.terminationRequested, s.gracePeriod = true, 1
			s.working, s.inFlight, s.inFlightWork = true, true, SyncPodWork
			s.cancel = w.rt.NewEvent("cancel/a#1")
		}, "syncpod-cancelled-once-requested"},
		{"work ahead of record", func(_ *PodWorkers, s *podSyncStatus) {
			s.working, s.inFlight, s.inFlightWork = true, true, TerminatedPodWork
		}, "in-flight-work-matches-record"},
		{"static started without the name", func(_ *PodWorkers, s *podSyncStatus) {
			s.activeUpdate = &UpdatePodOptions{Pod: static}
		}, "started-static-pod-is-live"},
		{"started entry without record", func(w *PodWorkers, _ *podSyncStatus) {
			w.startedStaticPodsByFullname["other_ns"] = "zz"
		}, "static-started-entry-live"},
		{"started entry of another name", func(w *PodWorkers, s *podSyncStatus) {
			w.startedStaticPodsByFullname["other_ns"] = "a"
		}, "static-started-entry-live"},
		{"empty wait list", func(w *PodWorkers, _ *podSyncStatus) {
			w.waitingToStartStaticPodsByFullname["x_ns"] = nil
		}, "static-wait-list-nonempty"},
		{"record under the wrong key", func(w *PodWorkers, s *podSyncStatus) { s.uid = "b" }, "record-keyed-by-uid"},
	}
}

// TestCheckInvariantsDetects breaks one invariant at a time on a healthy
// running record and expects CheckInvariants to name it.
func TestCheckInvariantsDetects(t *testing.T) {
	for _, tt := range invariantBreaks() {
		t.Run(tt.name, func(t *testing.T) {
			w := newBareWorkers(t, NewRealRuntime(nil, 1))
			s := healthyRecord(w, "a")
			w.records.set("a", s)
			if err := w.CheckInvariants(); err != nil {
				t.Fatalf("healthy record: got %v, want nil", err)
			}
			tt.mutate(w, s)
			err := w.CheckInvariants()
			var inv *InvariantError
			if !errors.As(err, &inv) || inv.Invariant != tt.want {
				t.Errorf("got %v, want invariant %s", err, tt.want)
			}
		})
	}
}

// TestCheckInvariantsOrder: with several broken records, the first in UID
// order is reported, so messages are deterministic.
func TestCheckInvariantsOrder(t *testing.T) {
	w := newBareWorkers(t, NewRealRuntime(nil, 1))
	for _, uid := range []string{"c", "b", "d"} {
		w.records.set(types.UID(uid), &podSyncStatus{uid: types.UID(uid), evicted: true})
	}
	for range 10 {
		err := w.CheckInvariants()
		if err == nil || !strings.Contains(err.Error(), "for pod b:") {
			t.Fatalf("got %v, want the error for pod b", err)
		}
	}
	if got := (&InvariantError{Invariant: "x", Detail: "y"}).Error(); got != "workers: invariant x broken: y" {
		t.Errorf("got %q", got)
	}
}

// TestWaitingStaticPodIsNotLost: a static pod refused by the exclusion
// keeps its update pending while idle, which the invariants accept.
func TestWaitingStaticPodIsNotLost(t *testing.T) {
	runHarness(t, seeded, func(t *testing.T, h *harness) {
		h.create(newStaticPod("b", "stable"))
		h.create(newStaticPod("a", "stable"))
		s := h.state("a")
		if !s.HasPendingUpdate || s.Working || s.PendingUpdateType != SyncPodCreate {
			t.Errorf("got %s, want an idle waiter with its create pending", s)
		}
		if err := ask(h, h.w.CheckInvariants); err != nil {
			t.Errorf("got %v, want nil", err)
		}
	})
}

// TestNoAssertions: the in-line assertions that read private state panic
// by default and are no-ops under Config.NoAssertions (SetNoAssertions),
// which harnesses judging only what a caller observes use.
func TestNoAssertions(t *testing.T) {
	asserts := map[string]func(w *PodWorkers){
		"acknowledgeTerminating without a request": func(w *PodWorkers) {
			w.acknowledgeTerminatingLocked(&podSyncStatus{uid: "a"})
		},
		"finishSyncWork on a vanished record": func(w *PodWorkers) {
			w.finishSyncWorkLocked(&podSyncStatus{uid: "a"}, podWork{}, syncResult{})
		},
	}
	for name, assert := range asserts {
		for _, off := range []bool{false, true} {
			w := newBareWorkers(t, NewRealRuntime(nil, 1))
			if off {
				w.SetNoAssertions()
			}
			panicked := func() (p bool) {
				defer func() { p = recover() != nil }()
				assert(w)
				return false
			}()
			if panicked == off {
				t.Errorf("%s with assertions off=%v: panicked=%v", name, off, panicked)
			}
		}
	}
	w := newBareWorkers(t, NewRealRuntime(nil, 1))
	w.podsSynced = true
	defer func() {
		if recover() == nil {
			t.Error("SetNoAssertions after the workers ran: no panic")
		}
	}()
	w.SetNoAssertions()
}

// TestActiveStaticFollowsThePod: the invariants' cached isStaticPod answer
// (activeStatic) is looked up again whenever the active pod is another
// object, through mergeLastUpdate or a new activeUpdate, so rule
// started-static-pod-is-live is checked against the pod active now. It
// fails when the answer is kept across a change of pod.
func TestActiveStaticFollowsThePod(t *testing.T) {
	w := newBareWorkers(t, NewRealRuntime(nil, 1))
	s := healthyRecord(w, "a")
	w.records.set("a", s)
	plain, static := s.activeUpdate.Pod, newStaticPod("a", "pod-a")
	steps := []struct {
		set  func()
		want int
	}{
		{func() {}, -1},
		{func() { s.mergeLastUpdate(UpdatePodOptions{Pod: static}) }, 15},
		{func() { s.mergeLastUpdate(UpdatePodOptions{Pod: plain}) }, -1},
		{func() { s.activeUpdate = &UpdatePodOptions{Pod: static} }, 15},
		{func() { s.activeUpdate = &UpdatePodOptions{Pod: plain} }, -1},
		{func() { s.activeUpdate.Pod = nil }, -1},
		{func() { s.activeUpdate.Pod = static }, 15},
	}
	for i, st := range steps {
		st.set()
		for range 2 { // the second check reads the cached answer
			if got := brokenRule(w, s); got != st.want {
				t.Fatalf("step %d: brokenRule %d, want %d", i, got, st.want)
			}
			if got, want := s.activeStatic(), isStaticPod(s.activeUpdate.Pod); got != want {
				t.Fatalf("step %d: activeStatic %v, isStaticPod %v", i, got, want)
			}
		}
	}
}
