package workers

import (
	"errors"
	"fmt"
	"testing"
	"testing/synctest"
	"time"
)

// TestCompleteWork_Enqueue is SPEC §5: the delay of the next re-sync. A unit
// test of a function of its arguments and the clock; it runs in a synctest
// bubble so that the clock does not move during the table.
func TestCompleteWork_Enqueue(t *testing.T) {
	const resync, backoff = time.Minute, 10 * time.Second
	synctest.Test(t, func(t *testing.T) {
		w := newBareWorkers(t, NewRealRuntime(nil, 1))
		now := time.Now()
		backoffAt := func(d time.Duration) error { return &BackoffError{Expiry: now.Add(d), Message: "pull"} }
		network := errors.New("runtime: network is not ready: cni")
		tests := []struct {
			name            string
			phaseTransition bool
			err             error
			min, max        time.Duration
		}{
			{"phase transition", true, nil, 0, 0},
			{"phase transition wins over error", true, errors.New("x"), 0, 0},
			{"success", false, nil, resync, resync * 3 / 2},
			{"generic error", false, errors.New("boom"), backoff, backoff * 3 / 2},
			{"canceled", false, ErrCanceled, backoff, backoff * 3 / 2},
			{"backoff error", false, backoffAt(4 * time.Second), 4 * time.Second, 6 * time.Second},
			{"wrapped backoff error", false, fmt.Errorf("sync: %w", backoffAt(4*time.Second)), 4 * time.Second, 6 * time.Second},
			{"aggregate takes earliest", false, Aggregate{backoffAt(7 * time.Second), backoffAt(3 * time.Second)}, 3 * time.Second, 4500 * time.Millisecond},
			{"join takes earliest", false, errors.Join(backoffAt(7*time.Second), backoffAt(2*time.Second)), 2 * time.Second, 3 * time.Second},
			{"expiry in the past", false, backoffAt(-time.Second), 0, 0},
			{"expiry beyond resync", false, backoffAt(5 * time.Minute), resync, resync * 3 / 2},
			{"network not ready", false, network, time.Second, 1500 * time.Millisecond},
			{"network not ready in aggregate", false, Aggregate{backoffAt(30 * time.Second), network}, time.Second, 1500 * time.Millisecond},
		}
		for _, tt := range tests {
			for range 20 {
				got := w.requeueDelay(tt.phaseTransition, tt.err)
				if got < tt.min || got > tt.max {
					t.Errorf("%s: got %s, want within [%s, %s]", tt.name, got, tt.min, tt.max)
					break
				}
			}
		}
	})
}

// TestCompleteWorkEnqueuesOnQueue: the worker itself puts the pod on the
// queue after each sync.
func TestCompleteWorkEnqueuesOnQueue(t *testing.T) {
	runHarness(t, seeded, func(t *testing.T, h *harness) {
		start := h.rt.Now()
		h.create(newPod("a", "pod-a"))
		entries := ask(h, h.queue.Entries)
		if len(entries) != 1 || entries[0].UID != "a" {
			t.Fatalf("got queue %v, want one entry for a", entries)
		}
		if d := entries[0].Due.Sub(start); d < time.Minute || d > 90*time.Second {
			t.Errorf("got due after %s, want within [1m, 1m30s]", d)
		}
	})
}

// TestCompleteWork_PendingUpdate is SPEC §5: with no pending update the
// worker goes idle; with one, it is woken again (no lost wake-up).
func TestCompleteWork_PendingUpdate(t *testing.T) {
	runHarness(t, seeded, func(t *testing.T, h *harness) {
		h.create(newPod("a", "pod-a"))
		status := h.record("a")
		idle := ask(h, func() bool {
			h.w.podLock.Lock()
			defer h.w.podLock.Unlock()
			status.working = true
			h.w.completeWorkLocked(status, false, nil)
			return !status.working
		})
		if !idle {
			t.Errorf("no pending update: got working, want idle")
		}

		h.do(func() {
			h.w.podLock.Lock()
			defer h.w.podLock.Unlock()
			replay := *status.activeUpdate
			status.pendingUpdate, status.working = &replay, true
			h.w.completeWorkLocked(status, false, nil)
		})
		if got, want := h.history("a"), "SyncPod(create) SyncPod(sync)"; got != want {
			t.Errorf("pending update: got history %q, want %q", got, want)
		}
	})
}

// TestSyncErrorsRetry: errors keep the pod in its phase; the status read
// error skips the sync call; the next update retries.
func TestSyncErrorsRetry(t *testing.T) {
	runHarness(t, seeded, func(t *testing.T, h *harness) {
		pod := newPod("a", "pod-a")
		h.cache.newerErr["a"] = []error{errors.New("cache")}
		h.create(pod)
		if got := h.history("a"); got != "" {
			t.Fatalf("got history %q, want none (status read failed)", got)
		}
		h.syncer.respond("SyncTerminatingPod", "a", syncOutcome{err: errors.New("cri")})
		h.syncer.respond("SyncTerminatedPod", "a", syncOutcome{err: errors.New("volumes")})
		h.kill(pod)
		if s := h.state("a"); s.State != "T" || s.Working {
			t.Errorf("after failed terminating: got %s, want T and idle", s)
		}
		h.modify(pod)
		if s := h.state("a"); s.State != "D" {
			t.Errorf("after failed terminated: got %s, want D", s)
		}
		h.modify(pod)
		want := "SyncTerminatingPod(30) SyncTerminatingPod(30) SyncTerminatedPod SyncTerminatedPod"
		if got := h.history("a"); got != want || !h.state("a").Finished {
			t.Errorf("got history %q, want %q and finished", got, want)
		}
	})
}

func TestErrorsFormatting(t *testing.T) {
	expiry := time.Date(2000, 1, 1, 0, 0, 5, 0, time.UTC)
	tests := []struct {
		err  error
		want string
	}{
		{&BackoffError{Expiry: expiry, Message: "pull"}, "pull: back-off until 2000-01-01T00:00:05Z"},
		{Aggregate{errors.New("a")}, "a"},
		{Aggregate{errors.New("a"), nil, errors.New("b")}, "[a, b]"},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("got %q, want %q", got, tt.want)
		}
	}
	if got := len(Aggregate{errors.New("a")}.Errors()); got != 1 {
		t.Errorf("got %d members, want 1", got)
	}
	var target *BackoffError
	if !errors.As(Aggregate{errors.New("x"), &BackoffError{Expiry: expiry}}, &target) || !target.Expiry.Equal(expiry) {
		t.Errorf("got no BackoffError through errors.As, want one")
	}
}

// errorsOnly is an apimachinery-style aggregate: members through Errors().
type errorsOnly []error

func (e errorsOnly) Error() string   { return "several" }
func (e errorsOnly) Errors() []error { return e }

func Test_earliestBackoffExpiry(t *testing.T) {
	t0 := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	err := errorsOnly{&BackoffError{Expiry: t0.Add(2 * time.Second)}, &BackoffError{Expiry: t0.Add(time.Second)}}
	got, ok := earliestBackoffExpiry(err)
	if !ok || !got.Equal(t0.Add(time.Second)) {
		t.Errorf("got (%s, %v), want (%s, true)", got, ok, t0.Add(time.Second))
	}
	if _, ok := earliestBackoffExpiry(errors.New("plain")); ok {
		t.Errorf("got an expiry for a plain error, want none")
	}
}
