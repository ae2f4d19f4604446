package run

import (
	"strconv"
	"testing"
	"time"

	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/sim"
)

// safetyViolations runs seeds [0, n) of f through RunSeed and returns the
// safety oracle's violations with their seeds; a run that ends in a
// scheduler error fails the test.
func safetyViolations(t *testing.T, f plan.Family, n uint64) (bad []string) {
	t.Helper()
	for seed := uint64(0); seed < n; seed++ {
		r := RunSeed(f, seed, sim.RandomWalk{}, CheckOptions{})
		if r.Err != nil {
			t.Errorf("%s seed %d: %v", f.Name, seed, r.Err)
		}
		for _, v := range r.Violations {
			if v.Oracle == "safety" {
				bad = append(bad, f.Name+" seed "+safetyItoa(seed)+": "+v.String())
			}
		}
	}
	return bad
}

func safetyItoa(n uint64) string { return strconv.FormatUint(n, 10) }

// TestSafetySwarmNoFalseAlarms: the correct workers pass S1–S19 on 2,000
// generated swarm runs (200 under -short).
func TestSafetySwarmNoFalseAlarms(t *testing.T) {
	// make sweep: 2,000; make test 500, as many as TestLivenessSwarmNoFalseAlarms.
	n := sweepBudget(2000, 500, 200)
	start := time.Now()
	bad := safetyViolations(t, familyNamed(t, "swarm"), n)
	for i, b := range bad {
		if i == 20 {
			break
		}
		t.Error(b)
	}
	if len(bad) > 0 {
		t.Errorf("got %d safety violations in %d swarm runs, want 0", len(bad), n)
	}
	t.Logf("%d swarm runs in %v", n, time.Since(start).Round(time.Millisecond))
}

// TestSafetyFamiliesNoFalseAlarms: every scenario family passes too.
func TestSafetyFamiliesNoFalseAlarms(t *testing.T) {
	n := sweepBudget(300, 100, 30)
	for _, f := range plan.KubeletFamilies() {
		bad := safetyViolations(t, f, n)
		for i, b := range bad {
			if i == 10 {
				break
			}
			t.Error(b)
		}
		if len(bad) > 0 {
			t.Errorf("%s: got %d safety violations in %d runs, want 0", f.Name, len(bad), n)
		}
	}
}
