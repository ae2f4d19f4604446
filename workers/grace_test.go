package workers

import (
	"errors"
	"fmt"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
)

// Test_calculateEffectiveGracePeriod is SPEC §5 plus the monotonicity rules
// of §1.7.
func Test_calculateEffectiveGracePeriod(t *testing.T) {
	spec := func(grace *int64, deletion *int64) *v1.Pod {
		pod := newPod("a", "pod-a")
		pod.Spec.TerminationGracePeriodSeconds = grace
		pod.DeletionGracePeriodSeconds = deletion
		return pod
	}
	override := func(v int64) *KillPodOptions {
		return &KillPodOptions{PodTerminationGracePeriodSecondsOverride: &v}
	}
	tests := []struct {
		name          string
		current       int64
		pod           *v1.Pod
		kill          *KillPodOptions
		wantGrace     int64
		wantShortened bool
	}{
		{"spec only", 0, spec(int64Ptr(30), nil), nil, 30, false},
		{"deletion grace", 0, spec(int64Ptr(30), int64Ptr(5)), nil, 5, false},
		{"override below deletion", 0, spec(int64Ptr(30), int64Ptr(5)), override(2), 2, false},
		{"deletion 0 is 1", 0, spec(int64Ptr(30), int64Ptr(0)), nil, 1, false},
		{"override 0 is 1", 0, spec(int64Ptr(30), nil), override(0), 1, false},
		{"negative override is 1", 0, spec(int64Ptr(30), nil), override(-5), 1, false},
		{"no spec, nothing set", 0, spec(nil, nil), nil, 1, false},
		{"no pod", 0, nil, nil, 1, false},
		{"never increases", 10, spec(int64Ptr(30), int64Ptr(20)), override(15), 10, false},
		{"override shortens", 10, spec(int64Ptr(30), nil), override(5), 5, true},
		{"deletion shortens", 10, spec(int64Ptr(30), int64Ptr(3)), nil, 3, true},
		{"already at 1", 1, spec(int64Ptr(30), nil), override(0), 1, false},
		{"same value", 5, spec(int64Ptr(30), int64Ptr(5)), nil, 5, false},
		// An explicit 0 is a value, not "unset": upstream's override step
		// tests grace == 0 right after the deletion grace set it to 0, so a
		// force-deleted pod's 1 s kill would be lengthened (and cancelled)
		// by any later override. S11: never increases.
		{"deletion 0 then override stays 1", 0, spec(int64Ptr(30), int64Ptr(0)), override(10), 1, false},
		{"force-deleted then override, at 1", 1, spec(int64Ptr(30), int64Ptr(0)), override(10), 1, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			grace, shortened := calculateEffectiveGracePeriod(&podSyncStatus{gracePeriod: tt.current}, tt.pod, tt.kill)
			if grace != tt.wantGrace || shortened != tt.wantShortened {
				t.Errorf("got (%d, %v), want (%d, %v)", grace, shortened, tt.wantGrace, tt.wantShortened)
			}
		})
	}
}

// TestGracePeriodShorteningCancels: a shorter grace cancels the in-flight
// SyncTerminatingPod, and the retry runs with it; a later longer grace is
// ignored (S11).
func TestGracePeriodShorteningCancels(t *testing.T) {
	runHarness(t, seeded, func(t *testing.T, h *harness) {
		pod := newPod("a", "pod-a")
		h.create(pod)
		h.syncer.block("SyncTerminatingPod", "a")
		h.syncer.respond("SyncTerminatingPod", "a", syncOutcome{err: ErrCanceled})
		h.update(UpdatePodOptions{UpdateType: SyncPodKill, Pod: pod,
			KillPodOptions: &KillPodOptions{PodTerminationGracePeriodSecondsOverride: int64Ptr(20)}})
		first := h.syncer.callsFor("a")[1]
		if h.fired(first.cancel) {
			t.Fatalf("got the terminating sync cancelled before any shortening, want it live")
		}
		h.update(UpdatePodOptions{UpdateType: SyncPodKill, Pod: pod,
			KillPodOptions: &KillPodOptions{PodTerminationGracePeriodSecondsOverride: int64Ptr(5)}})
		if !h.fired(first.cancel) {
			t.Errorf("got the in-flight SyncTerminatingPod not cancelled, want cancelled on shortening")
		}
		h.modify(withDeletion(pod, 25))
		h.unblock("SyncTerminatingPod", "a")
		if got, want := h.history("a"), "SyncPod(create) SyncTerminatingPod(20) SyncTerminatingPod(5) SyncTerminatedPod"; got != want {
			t.Errorf("got history %q, want %q", got, want)
		}
		// #1 (SyncPod) fired at the kill, #2 (first terminating) at the
		// shortening; #3 is the retry's.
		if got, want := fmt.Sprint(h.rt.eventNames()), "[cancel/a#1 cancel/a#2 cancel/a#3]"; got != want {
			t.Errorf("got events %s, want %s", got, want)
		}
	})
}

// TestKillPodNowFunc is SPEC §5: a kill-and-wait with grace 0 returns nil
// after terminating (grace 1) and terminated; the status function reaches
// SyncTerminatingPod.
func TestKillPodNowFunc(t *testing.T) {
	runHarness(t, seeded, func(t *testing.T, h *harness) {
		pod := newPod("a", "pod-a")
		statusFn := func(s *v1.PodStatus) { s.Phase = v1.PodFailed }
		if c := h.killNow(pod, false, int64Ptr(0), statusFn).get(); !c.done || c.err != nil {
			t.Fatalf("got (returned %v, %v), want nil", c.done, c.err)
		}
		// KillPodNow returns at termination; SyncTerminatedPod follows.
		if got, want := h.history("a"), "SyncTerminatingPod(1) SyncTerminatedPod"; got != want {
			t.Errorf("got history %q, want %q", got, want)
		}
		var status v1.PodStatus
		h.syncer.callsFor("a")[0].statusFn(&status)
		if status.Phase != v1.PodFailed {
			t.Errorf("got phase %q from the status function, want Failed", status.Phase)
		}
	})
}

// TestKillPodNowTimeout: a kill that does not complete within
// max(10 s, 1.5 × grace) returns a *KillTimeoutError after exactly that.
func TestKillPodNowTimeout(t *testing.T) {
	runHarness(t, seeded, func(t *testing.T, h *harness) {
		pod := newPod("a", "pod-a")
		h.create(pod)
		h.syncer.block("SyncTerminatingPod", "a")
		call := h.killNow(pod, true, nil, nil)
		if c := call.get(); c.done {
			t.Fatalf("got KillPodNow returned (%v) before any time passed, want it waiting", c.err)
		}
		h.e.Advance(time.Minute)
		c := call.get()
		var timeout *KillTimeoutError
		if !c.done || !errors.As(c.err, &timeout) || timeout.Timeout != 45*time.Second || timeout.UID != "a" {
			t.Fatalf("got (returned %v, %v), want a 45s *KillTimeoutError for a", c.done, c.err)
		}
		if got := c.took; got != 45*time.Second {
			t.Errorf("got a wait of %s, want 45s", got)
		}
		if c.err.Error() == "" {
			t.Errorf("got an empty error message")
		}
	})
}

func Test_killTimeout(t *testing.T) {
	tests := []struct {
		name     string
		spec     *int64
		override *int64
		want     time.Duration
	}{
		{"spec 30", int64Ptr(30), nil, 45 * time.Second},
		{"override 0", int64Ptr(30), int64Ptr(0), 10 * time.Second},
		{"override 7", int64Ptr(30), int64Ptr(7), 10 * time.Second},
		{"override 21 rounds down", int64Ptr(30), int64Ptr(21), 31 * time.Second},
		{"no spec", nil, nil, 10 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pod := newPod("a", "pod-a")
			pod.Spec.TerminationGracePeriodSeconds = tt.spec
			if got := killTimeout(pod, tt.override); got != tt.want {
				t.Errorf("got %s, want %s", got, tt.want)
			}
		})
	}
}
