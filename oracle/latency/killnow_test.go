package latency

import (
	"testing"
	"time"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/model/ops"
)

// TestKillNowTimeout feeds the killPodNow-timeout check (R2) one kill and
// its wait: a wait that ends terminated in time or times out exactly at
// max(10 s, 1.5 × grace) passes; one that gives up early or late, or
// returns terminated past its timeout, is reported. The grace is the
// override if the kill has one, else the spec grace.
func TestKillNowTimeout(t *testing.T) {
	override := func(g int64) ops.KillOptions {
		return ops.KillOptions{GraceOverride: g, HasGraceOverride: true, CompletionID: 1}
	}
	spec := ops.KillOptions{CompletionID: 1}
	cases := []struct {
		name          string
		kill          ops.KillOptions
		waited        time.Duration
		terminated    bool
		wantViolation bool
	}{
		{"spec grace 30, timed out at 45 s", spec, 45 * time.Second, false, false},
		{"spec grace 30, terminated at 20 s", spec, 20 * time.Second, true, false},
		{"spec grace 30, gave up at 10 s (spec grace ignored)", spec, 10 * time.Second, false, true},
		{"spec grace 30, terminated at 46 s (past the timeout)", spec, 46 * time.Second, true, true},
		{"override 2, timed out at the 10 s floor", override(2), 10 * time.Second, false, false},
		{"override 2, waited the spec grace's 45 s (override ignored)", override(2), 45 * time.Second, false, true},
		{"override 0, timed out at 10 s", override(0), 10 * time.Second, false, false},
		{"override 7, timed out at 10 s (7 + 3)", override(7), 10 * time.Second, false, false},
		{"override 8, timed out at 12 s", override(8), 12 * time.Second, false, false},
	}
	reused := NewKillNow().(*killNowCheck) // one check for every case, Reset between
	for _, c := range cases {
		reused.Reset()
		for _, k := range []*killNowCheck{NewKillNow().(*killNowCheck), reused} {
			killNowCase(t, k, c.name, c.kill, c.waited, c.terminated, c.wantViolation)
		}
	}
}

// killNowCase feeds k one kill and its wait (TestKillNowTimeout's case
// name) and checks the verdict.
func killNowCase(t *testing.T, k *killNowCheck, name string, kill ops.KillOptions, waited time.Duration, terminated, wantViolation bool) {
	pod := ops.Pod{UID: "a", SpecGrace: 30}
	k.Observe(nil, &history.Event{Kind: history.ClientCall, ID: 1, Goroutine: "eviction/1", At: time.Second,
		Input: ops.UpdatePod{Type: ops.Kill, Pod: pod, Kill: kill}})
	k.Observe(nil, &history.Event{Kind: history.ClientReturn, ID: 1, Goroutine: "eviction/1", At: time.Second})
	k.Observe(nil, &history.Event{Kind: history.ClientCall, ID: 2, Goroutine: "eviction/1", At: time.Second,
		Input: ops.KillPodNowDone{UID: "a", ID: 1}})
	k.Observe(nil, &history.Event{Kind: history.ClientReturn, ID: 2, Goroutine: "eviction/1", At: time.Second + waited,
		Output: ops.Answer(terminated)})
	if got := len(k.Finish(nil, nil)) > 0; got != wantViolation {
		t.Errorf("%s: got violation %v (%v), want %v", name, got, k.violations, wantViolation)
	}
}
