package latency

import (
	"testing"
	"time"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/model/ops"
)

// TestStatusFreshness feeds the status-freshness check (R3) one worker's
// passes: each read asks for a status newer than the worker's last return
// (the zero time first) and passes; a read that forgets the last return
// (a lost lastSyncTime), asks for the zero time again, or runs ahead is
// reported. Another worker's returns and a restart reset nothing wrongly.
func TestStatusFreshness(t *testing.T) {
	read := func(g string, at, newer time.Duration) history.Event {
		return history.Event{Kind: history.Noted, Goroutine: g, At: at, Note: history.StatusRead{UID: "a", NewerThan: newer}}
	}
	end := func(g string, at time.Duration) history.Event {
		return history.Event{Kind: history.CallbackEnd, Goroutine: g, At: at, Input: ops.SyncEnd{UID: "a", Fn: ops.SyncPod}}
	}
	cases := []struct {
		name          string
		events        []history.Event
		wantViolation bool
	}{
		{"first pass, then newer than the first return", []history.Event{read("worker/a", 0, -1), end("worker/a", 2*time.Second),
			read("worker/a", 3*time.Second, 2*time.Second)}, false},
		{"second pass asks for any status again", []history.Event{read("worker/a", 0, -1), end("worker/a", 2*time.Second),
			read("worker/a", 3*time.Second, -1)}, true},
		{"second pass asks for a stale moment", []history.Event{end("worker/a", time.Second), end("worker/a", 2*time.Second),
			read("worker/a", 3*time.Second, time.Second)}, true},
		{"first pass asks for a moment", []history.Event{read("worker/a", time.Second, time.Second)}, true},
		{"a reused UID's new worker starts from the zero time", []history.Event{end("worker/a", time.Second),
			read("worker/a#2", 2*time.Second, -1)}, false},
		{"a restarted kubelet's worker starts from the zero time", []history.Event{end("worker/a", time.Second),
			{Kind: history.Restarted}, read("worker/a", 2*time.Second, -1)}, false},
	}
	for _, c := range cases {
		k := NewFreshness()
		for _, ev := range c.events {
			k.Observe(nil, &ev)
		}
		if got := len(k.Finish(nil, nil)) > 0; got != c.wantViolation {
			t.Errorf("%s: got violation %v (%v), want %v", c.name, got, k.Finish(nil, nil), c.wantViolation)
		}
	}
}
