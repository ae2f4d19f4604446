package run

import (
	"crypto/sha256"
	"encoding/hex"
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

// TestLeanFailingSeedIsRerunTraced: a Lean run of the correct code
// records no trace, so a failing one is run again traced (rerunTraced,
// seen to run once) and its result is the full run's in every field Lean
// reports, trace hash included (RunSeedTrace's trace hashes to it); a
// passing Lean seed is not run again and its scheduler recorded no trace.
// Planted mutants, run untraced as the correct code is (untraceMutant),
// make the seeds fail, on the kubelet world and the VK world. A Lean run
// of a mutant as simrun makes it is traced and not run again.
func TestLeanFailingSeedIsRerunTraced(t *testing.T) {
	defer func() { perturbRerun = nil }()
	for _, c := range []struct{ family, mutant string }{{"early-kill", "B2"}, {"vk-startup", "vk/V1"}} {
		full := CheckOptions{Mutant: c.mutant}
		f, want := firstFailing(t, c.family, full)
		reruns := 0
		perturbRerun = func(*Result) { reruns++ }
		var lane Lane
		lean := full
		lean.Lean = true
		if got := lane.RunSeed(f, want.Seed, sim.RandomWalk{}, lean); !got.Failed() || reruns != 0 {
			t.Fatalf("%s seed %d: a Lean mutant run failed %v and was run again %d times, want a failure and 0", c.family, want.Seed, got.Failed(), reruns)
		}
		lean.untraceMutant = true
		got, trace := lane.RunSeedTrace(f, want.Seed, sim.RandomWalk{}, lean)
		if d := sameResult(got, leanOf(want, full)); d != "" || reruns != 1 || got.TraceSHA == "" {
			t.Fatalf("%s seed %d: Lean result differs from the full run's (%s) or re-runs %d, want 1", c.family, want.Seed, d, reruns)
		}
		if sum := sha256.Sum256([]byte(trace)); hex.EncodeToString(sum[:]) != got.TraceSHA {
			t.Fatalf("%s seed %d: the re-run's trace does not hash to the result's %s", c.family, want.Seed, got.TraceSHA)
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

// TestRerunThatDiffersFails: if the traced re-run of a failing Lean seed
// fails otherwise than its untraced run (nondeterminism; here a test hook
// changes the re-run's result), the seed fails with an error naming the
// nondeterminism and the difference, for each field the two must share,
// even when the re-run itself passes; a sweep is not stopped by a panic.
func TestRerunThatDiffersFails(t *testing.T) {
	f, failing := firstFailing(t, "early-kill", CheckOptions{Mutant: "B2"})
	defer func() { perturbRerun = nil }()
	for name, perturb := range map[string]func(*Result){
		"violations": func(r *Result) { r.Violations = append(r.Violations, history.Violation{Oracle: "planted"}) },
		"error":      func(r *Result) { r.Err = fmt.Errorf("planted") },
		"steps":      func(r *Result) { r.Steps++ },
		"marks":      func(r *Result) { r.Marks = append(r.Marks, "planted") },
		"passes":     func(r *Result) { r.Err, r.Violations = nil, nil },
	} {
		perturbRerun = perturb
		r := RunSeed(f, failing.Seed, sim.RandomWalk{}, CheckOptions{Mutant: "B2", Lean: true, untraceMutant: true})
		if !r.Failed() || r.Err == nil || !strings.Contains(r.Err.Error(), "nondeterminism") || !strings.Contains(r.Err.Error(), "re-run") {
			t.Fatalf("re-run with other %s: failed %v, error %v; want a failing seed naming the nondeterminism", name, r.Failed(), r.Err)
		}
	}
	perturbRerun = nil
	if r := RunSeed(f, failing.Seed, sim.RandomWalk{}, CheckOptions{Mutant: "B2", Lean: true, untraceMutant: true}); r.Err != nil && strings.Contains(r.Err.Error(), "nondeterminism") {
		t.Fatalf("an unperturbed re-run reads as nondeterminism: %v", r.Err)
	}
}

// TestErrorTextLeavesOutTheStack: two hot loops of one goroutine after as
// many handoffs read the same whatever their stacks (which hold
// addresses); another goroutine, handoff count or error reads otherwise.
func TestErrorTextLeavesOutTheStack(t *testing.T) {
	hot := &sim.HotLoopError{Goroutine: "worker/a", Handoffs: 7, Stack: "0xc000123"}
	same := &sim.HotLoopError{Goroutine: "worker/a", Handoffs: 7, Stack: "0xc000456"}
	if errorText(hot) != errorText(same) {
		t.Fatalf("hot loops differing only in their stacks: %q and %q", errorText(hot), errorText(same))
	}
	for _, other := range []error{&sim.HotLoopError{Goroutine: "worker/b", Handoffs: 7},
		&sim.HotLoopError{Goroutine: "worker/a", Handoffs: 8}, fmt.Errorf("planted"), nil} {
		if errorText(other) == errorText(hot) {
			t.Fatalf("%v reads as the hot loop %v", other, hot)
		}
	}
}
