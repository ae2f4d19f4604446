package run

import (
	"fmt"
	"strings"
	"testing"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/sim"
)

// firstFailing is the first seed below 200 of family whose run under
// opts fails, found with full runs.
func firstFailing(t *testing.T, family string, opts CheckOptions) (plan.Family, Result) {
	f, _ := plan.FamilyNamed(family)
	for seed := uint64(0); seed < 200; seed++ {
		if r := RunSeed(f, seed, sim.RandomWalk{}, opts); r.Failed() {
			return f, r
		}
	}
	t.Fatalf("%s %+v: no failing seed in 200", family, opts)
	return f, Result{}
}

// TestLeanFailingSeedIsRerunTraced: a Lean run records no trace, so a
// failing Lean seed is run again traced (rerunTraced, seen to run once)
// and its result is the full run's in every field Lean reports,
// trace hash included; a passing Lean seed is not run again and its
// scheduler recorded no trace. Planted mutants make the seeds fail, on
// the kubelet world and the VK world.
func TestLeanFailingSeedIsRerunTraced(t *testing.T) {
	for _, c := range []struct{ family, mutant string }{{"early-kill", "B2"}, {"vk-startup", "vk/V1"}} {
		full := CheckOptions{Mutant: c.mutant}
		f, want := firstFailing(t, c.family, full)
		reruns := 0
		perturbRerun = func(*Result) { reruns++ }
		var lane Lane
		lean := full
		lean.Lean = true
		got := lane.RunSeed(f, want.Seed, sim.RandomWalk{}, lean)
		perturbRerun = nil
		if d := sameResult(got, leanOf(want, full)); d != "" || reruns != 1 || got.TraceSHA == "" {
			t.Fatalf("%s seed %d: Lean result differs from the full run's (%s) or re-runs %d, want 1", c.family, want.Seed, d, reruns)
		}
		for seed := uint64(0); seed < 200; seed++ {
			r, s, _ := runSeedOn(nil, f, seed, sim.RandomWalk{}, CheckOptions{Lean: true})
			if !r.Failed() {
				if s.Traced() {
					t.Fatalf("%s seed %d: a passing Lean seed's scheduler traced its run", c.family, seed)
				}
				break
			}
		}
	}
}

// TestRerunThatDiffersStops: if the traced re-run of a failing Lean seed
// fails otherwise than its untraced run (nondeterminism; here a test hook
// changes the re-run's result), the run stops with an internal error
// naming the difference, for each field the two must share.
func TestRerunThatDiffersStops(t *testing.T) {
	f, failing := firstFailing(t, "early-kill", CheckOptions{Mutant: "B2"})
	defer func() { perturbRerun = nil }()
	for name, perturb := range map[string]func(*Result){
		"violations": func(r *Result) { r.Violations = append(r.Violations, history.Violation{Oracle: "planted"}) },
		"error":      func(r *Result) { r.Err = fmt.Errorf("planted") },
		"steps":      func(r *Result) { r.Steps++ },
		"marks":      func(r *Result) { r.Marks = append(r.Marks, "planted") },
	} {
		perturbRerun = perturb
		msg := func() (msg string) {
			defer func() { msg = fmt.Sprint(recover()) }()
			RunSeed(f, failing.Seed, sim.RandomWalk{}, CheckOptions{Mutant: "B2", Lean: true})
			return "no panic"
		}()
		if !strings.Contains(msg, "internal error: nondeterminism") || !strings.Contains(msg, "re-run") {
			t.Fatalf("re-run with other %s: %q, want the internal error", name, msg)
		}
	}
}
