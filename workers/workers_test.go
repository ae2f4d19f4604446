package workers

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestNewValidatesAndDefaults(t *testing.T) {
	rt := newTestRuntime(t, NewRealRuntime(nil, 1))
	tests := []struct {
		name string
		cfg  Config
		want string
	}{
		{"no runtime", Config{Syncer: newFakeSyncer(rt), Cache: newFakeCache()}, "workers: New: Config.Runtime is nil"},
		{"no syncer", Config{Runtime: rt, Cache: newFakeCache()}, "workers: New: Config.Syncer is nil"},
		{"no cache", Config{Runtime: rt, Syncer: newFakeSyncer(rt)}, "workers: New: Config.Cache is nil"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { expectPanic(t, tt.want, func() { New(tt.cfg) }) })
	}
	w := New(Config{Runtime: rt, Syncer: newFakeSyncer(rt), Cache: newFakeCache()})
	if w.resyncInterval != DefaultResyncInterval || w.backoffPeriod != DefaultBackoffPeriod {
		t.Errorf("got resync %s backoff %s, want the kubelet defaults", w.resyncInterval, w.backoffPeriod)
	}
	if _, ok := w.WorkQueue().(*Queue); !ok {
		t.Errorf("got queue %T, want a *Queue", w.WorkQueue())
	}
}

// TestShutdown: workers exit, later updates are dropped and a later
// kill-and-wait times out.
func TestShutdown(t *testing.T) {
	runHarness(t, seeded, func(t *testing.T, h *harness) {
		pod := newPod("a", "pod-a")
		h.syncer.block("SyncPod", "a")
		h.create(pod)
		h.do(h.w.Shutdown)
		h.unblock("SyncPod", "a")
		h.create(newPod("b", "pod-b"))
		if _, ok := h.podState("b"); ok {
			t.Errorf("got a record created after Shutdown")
		}
		call := h.killNow(pod, false, nil, nil)
		h.e.Advance(time.Minute)
		c := call.get()
		var timeout *KillTimeoutError
		if !c.done || !errors.As(c.err, &timeout) || c.took != 45*time.Second {
			t.Errorf("KillPodNow after Shutdown: got (returned %v, %v after %s), want a timeout after 45s", c.done, c.err, c.took)
		}
		if s := h.state("a"); s.HasWorker || s.Working {
			t.Errorf("got %s, want no worker and idle", s)
		}
	})
}

// TestPodStateSnapshot: snapshots are deterministic and complete.
func TestPodStateSnapshot(t *testing.T) {
	runHarness(t, seeded, func(t *testing.T, h *harness) {
		h.syncer.block("SyncTerminatingPod", "b")
		h.create(newPod("b", "pod-b"))
		h.update(UpdatePodOptions{UpdateType: SyncPodKill, Pod: newPod("b", "pod-b"),
			KillPodOptions: &KillPodOptions{Evict: true, CompletedCh: h.rt.NewEvent("completed")}})
		h.rt.hold("a")
		h.create(newPod("a", "pod-a"))
		states := h.states()
		got := []string{states[0].String(), states[1].String()}
		want := []string{
			"uid=a state=P grace=0 flags=working,worker pending=create",
			"uid=b state=T grace=30 flags=started,requested,acknowledged,evicted,working,inflight,worker kills=1 cancel=#2",
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		if _, ok := h.podState("zz"); ok {
			t.Errorf("got a snapshot for an unknown UID")
		}
		if s := h.state("b"); s.FullName != "pod-b_ns" || s.TerminatingAt.IsZero() || !s.StartedAt.Equal(s.SyncedAt) {
			t.Errorf("got %+v, want full name and times filled in", s)
		}
		h.update(UpdatePodOptions{UpdateType: SyncPodKill, Pod: newPod("b", "pod-b"),
			KillPodOptions: &KillPodOptions{PodTerminationGracePeriodSecondsOverride: int64Ptr(3)}})
		if got := h.state("b").String(); !strings.HasSuffix(got, "pending=kill kills=1 cancel=#2(fired)") {
			t.Errorf("after shortening: got %s, want a pending kill and the cancellation fired", got)
		}
	})
}

// TestStableNames: goroutines and primitives are named after the UID.
func TestStableNames(t *testing.T) {
	runHarness(t, seeded, func(t *testing.T, h *harness) {
		pod := newPod("a", "pod-a")
		h.create(pod)
		if c := h.killNow(pod, false, nil, nil).get(); !c.done || c.err != nil {
			t.Fatalf("got (returned %v, %v), want nil", c.done, c.err)
		}
		if got, want := strings.Join(h.rt.eventNames(), " "), "cancel/a#1 cancel/a#2 killed/a"; got != want {
			t.Errorf("got events %q, want %q", got, want)
		}
	})
}
