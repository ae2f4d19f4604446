package run

import (
	"runtime"
	"slices"
	"testing"

	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/sim"
	"github.com/podsim/podsim/vkworld"
)

func vkFamily(t testing.TB, name string) plan.Family {
	f, ok := plan.FamilyNamed(name)
	if !ok || f.Name != name {
		t.Fatalf("no family %q", name)
	}
	return f
}

// TestVKCorrectCodeSweep: the simulated VK controller with no mutant passes
// every seed of every VK family under both strategies (0 findings).
func TestVKCorrectCodeSweep(t *testing.T) {
	seeds := uint64(300)
	if testing.Short() {
		seeds = 60
	}
	for _, f := range plan.VKFamilies() {
		for _, st := range []sim.Strategy{sim.RandomWalk{}, sim.PCT{Depth: 3, Steps: 2000}} {
			for seed := range seeds {
				if r := RunSeed(f, seed, st, CheckOptions{}); r.Failed() {
					t.Fatalf("%v: got a failure on the correct code: %v", st, r)
				}
			}
		}
	}
}

// TestVKDeterminism: a VK seed gives the same trace hash run again, at
// GOMAXPROCS 1 and 4.
func TestVKDeterminism(t *testing.T) {
	for _, f := range plan.VKFamilies() {
		for seed := range uint64(20) {
			first := RunSeed(f, seed, sim.RandomWalk{}, CheckOptions{Mutant: ""})
			for _, procs := range []int{1, 4} {
				prev := runtime.GOMAXPROCS(procs)
				again := RunSeed(f, seed, sim.RandomWalk{}, CheckOptions{})
				runtime.GOMAXPROCS(prev)
				if again.TraceSHA != first.TraceSHA || again.Steps != first.Steps {
					t.Fatalf("%s seed %d at GOMAXPROCS %d: got trace %s (%d steps), want %s (%d steps)",
						f.Name, seed, procs, again.TraceSHA, again.Steps, first.TraceSHA, first.Steps)
				}
			}
		}
	}
}

// TestVKMutantsCaughtByTheOracles: every VK mutant is caught from three
// start seeds within a small budget, by the VK oracle's checks the mutant
// lists (V8: by its consequence, VK7, with the crash reported as the run's
// error besides), never by a check of its own.
func TestVKMutantsCaughtByTheOracles(t *testing.T) {
	const budget = 100
	for _, m := range vkworld.Mutants() {
		for _, start := range []uint64{0, 1_000_000, 2_000_000} {
			caught := ""
		search:
			for seed := start; seed < start+budget; seed++ {
				for _, fam := range m.Families {
					r := RunSeed(vkFamily(t, fam), seed, sim.RandomWalk{}, CheckOptions{Mutant: m.Name})
					if !r.Failed() {
						continue
					}
					keys := FailureKeys(r)
					if !slices.ContainsFunc(m.Invariants, func(inv string) bool { return slices.Contains(keys, "vk "+inv) }) {
						t.Errorf("%s: caught by %q, want the VK oracle's %v", m.Name, keys, m.Invariants)
					}
					if m.Name == "vk/V8" && keys[0] != "scheduler panic" {
						t.Errorf("%s: got %q, want the crash reported too (scheduler panic)", m.Name, keys)
					}
					caught = keys[0]
					break search
				}
			}
			if caught == "" {
				t.Errorf("%s survived %d seeds from start %d", m.Name, budget, start)
			}
		}
	}
}

// TestVKReplayMatches: replaying a VK seed gives the run's result and trace.
func TestVKReplayMatches(t *testing.T) {
	f := vkFamily(t, "vk-swarm")
	r := RunSeed(f, 7, sim.RandomWalk{}, CheckOptions{})
	rp := ReplaySeed(f, 7, sim.RandomWalk{}, CheckOptions{})
	if rp.TraceSHA != r.TraceSHA || rp.Plan.VK == nil || rp.Trace == "" {
		t.Fatalf("got %s (vk %v), want %s and a VK plan with a trace", rp.TraceSHA, rp.Plan.VK, r.TraceSHA)
	}
}

// TestVKRetryTimingSweep: across a sweep of the families V7 runs on, the
// correct code never trips VK8 (the status queue's retry timing), while
// the same seeds with V7's shared rate limiter do: the sweep reaches the
// retries the check judges.
func TestVKRetryTimingSweep(t *testing.T) {
	seeds := uint64(300)
	if testing.Short() {
		seeds = 150
	}
	v7 := 0
	for _, name := range []string{"vk-status-faults", "vk-swarm"} {
		f := vkFamily(t, name)
		for _, st := range []sim.Strategy{sim.RandomWalk{}, sim.PCT{Depth: 3, Steps: 2000}} {
			for seed := range seeds {
				for _, v := range RunSeed(f, seed, st, CheckOptions{}).Violations {
					if v.Invariant == "VK8" {
						t.Fatalf("%s seed %d (%v): the correct code tripped VK8: %s", name, seed, st, v.Message)
					}
				}
				for _, v := range RunSeed(f, seed, st, CheckOptions{Mutant: "vk/V7"}).Violations {
					if v.Invariant == "VK8" {
						v7++
						break
					}
				}
			}
		}
	}
	if v7 == 0 {
		t.Fatal("V7 never tripped VK8 over the sweep: the sweep does not reach the retries VK8 judges")
	}
	t.Logf("V7 tripped VK8 in %d runs", v7)
}
