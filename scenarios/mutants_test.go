package scenarios

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/podsim/podsim/model"
	"github.com/podsim/podsim/sim"
)

// TestMutantRegistry: every catalogued mutant names real families and the
// invariants expected to catch it, and every BUGS.md entry with a mutant
// is catalogued.
func TestMutantRegistry(t *testing.T) {
	var families []string
	for _, f := range Families() {
		families = append(families, f.Name)
	}
	seen := map[string]bool{}
	for _, m := range Mutants() {
		if seen[m.Name] {
			t.Errorf("mutant %s listed twice", m.Name)
		}
		seen[m.Name] = true
		if m.Issue == "" || m.Mutation == "" || len(m.Invariants) == 0 || len(m.Families) == 0 {
			t.Errorf("mutant %s: got %+v, want a wired kind, issue, mutation, invariants and families", m.Name, m)
		}
		for _, f := range m.Families {
			if !slices.Contains(families, f) {
				t.Errorf("mutant %s: unknown family %q", m.Name, f)
			}
		}
	}
	for _, want := range strings.Fields("G1 G2 G3 G4 B1 B2 B3 B4 B5 B6 B7 B8 B10 B11 B12 B13 B14 B16 V2") {
		if !seen[want] {
			t.Errorf("BUGS.md entry %s is not a mutant", want)
		}
	}
}

func TestUnknownMutantIsAnError(t *testing.T) {
	r := RunSeed(Families()[0], 0, sim.RandomWalk{}, CheckOptions{Mutant: "B99"})
	var unknown *UnknownMutantError
	if !errors.As(r.Err, &unknown) || !strings.Contains(r.Err.Error(), "B16") {
		t.Fatalf("got %v, want an UnknownMutantError listing the mutants", r.Err)
	}
}

// TestKillLatencyBoundExceedsHonestCalls: the fake runtime's honest slow
// calls stay under KillLatencyBound in every family, so the kill-latency
// oracle can fire only when the B16 fault mode is on.
func TestKillLatencyBoundExceedsHonestCalls(t *testing.T) {
	for _, f := range Families() {
		for seed := range uint64(200) {
			p := f.Generate(SeedStreams(seed).Plan)
			if p.Faults.MaxDelay >= KillLatencyBound || p.Faults.UncancellablePull != 0 {
				t.Fatalf("%s seed %d: faults %+v reach the %v kill-latency bound", f.Name, seed, p.Faults, KillLatencyBound)
			}
		}
	}
	if B16PullTime <= KillLatencyBound {
		t.Fatalf("B16PullTime %v does not exceed KillLatencyBound %v", B16PullTime, KillLatencyBound)
	}
}

// TestKillLatencyOracle feeds the oracle SyncPod calls: only one that runs
// past the bound after its cancellation is reported.
func TestKillLatencyOracle(t *testing.T) {
	cases := []struct {
		name             string
		cancelAt, endAt  time.Duration // cancelAt < 0: never cancelled
		wantViolation    bool
		otherUIDCancelAt time.Duration
	}{
		{"returns promptly after the kill", time.Second, 5 * time.Second, false, -1},
		{"returns at the bound", time.Second, time.Second + KillLatencyBound, false, -1},
		{"ignores the kill", time.Second, 2*time.Second + KillLatencyBound, true, -1},
		{"long but never cancelled", -1, time.Minute, false, -1},
		{"another pod's cancellation", -1, time.Minute, false, time.Second},
	}
	for _, c := range cases {
		k := newKillLatency(CheckOptions{}).(*killLatency)
		k.Observe(nil, Event{Kind: CallbackBegin, Input: model.SyncBegin{UID: "a", Fn: model.SyncPod}})
		if c.cancelAt >= 0 {
			k.Observe(nil, Event{Kind: Fired, At: c.cancelAt, Input: model.CancelFired{UID: "a"}})
		}
		if c.otherUIDCancelAt >= 0 {
			k.Observe(nil, Event{Kind: Fired, At: c.otherUIDCancelAt, Input: model.CancelFired{UID: "b"}})
		}
		k.Observe(nil, Event{Kind: CallbackEnd, At: c.endAt, Input: model.SyncEnd{UID: "a", Fn: model.SyncPod}})
		if got := len(k.violations) > 0; got != c.wantViolation {
			t.Errorf("%s: got violation %v (%v), want %v", c.name, got, k.violations, c.wantViolation)
		}
	}
}

// TestB16FaultIsCaughtOnlyWhenOn: the same seed passes with the honest
// runtime and fails the kill-latency bound with the B16 fault mode.
func TestB16FaultIsCaughtOnlyWhenOn(t *testing.T) {
	f, _ := gateFamily("kill-during-create")
	if r := RunSeed(f, 0, sim.RandomWalk{}, CheckOptions{}); r.Failed() {
		t.Fatalf("correct code: %v", r)
	}
	r := RunSeed(f, 0, sim.RandomWalk{}, CheckOptions{Mutant: "B16"})
	if !slices.ContainsFunc(r.Violations, func(v Violation) bool { return v.Invariant == "kill-latency" }) {
		t.Fatalf("B16: got %v, want a kill-latency violation", r)
	}
}
