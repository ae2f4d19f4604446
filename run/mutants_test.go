package run

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/oracle/latency"
	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/sim"
	"github.com/podsim/podsim/vkworld"
	"github.com/podsim/podsim/world"
)

// TestMutantRegistry: every catalogued mutant names real families and the
// invariants expected to catch it, and every docs/bugs.md entry with a mutant
// is catalogued.
func TestMutantRegistry(t *testing.T) {
	var families []string
	for _, f := range plan.Families() {
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
			t.Errorf("docs/bugs.md entry %s is not a mutant", want)
		}
	}
}

func TestUnknownMutantIsAnError(t *testing.T) {
	r := RunSeed(plan.Families()[0], 0, sim.RandomWalk{}, CheckOptions{Mutant: "B99"})
	var unknown *UnknownMutantError
	if !errors.As(r.Err, &unknown) || !strings.Contains(r.Err.Error(), "B16") {
		t.Fatalf("got %v, want an UnknownMutantError listing the mutants", r.Err)
	}
}

// TestKillLatencyBoundExceedsHonestCalls: the fake runtime's honest slow
// calls stay under KillLatencyBound in every family, so the kill-latency
// oracle can fire only when the B16 fault mode is on.
func TestKillLatencyBoundExceedsHonestCalls(t *testing.T) {
	for _, f := range plan.Families() {
		for seed := range uint64(200) {
			p := f.Generate(plan.SeedStreams(seed).Plan)
			if p.Faults.MaxDelay >= latency.KillLatencyBound || p.Faults.UncancellablePull != 0 {
				t.Fatalf("%s seed %d: faults %+v reach the %v kill-latency bound", f.Name, seed, p.Faults, latency.KillLatencyBound)
			}
		}
	}
	if world.B16PullTime <= latency.KillLatencyBound {
		t.Fatalf("world.B16PullTime %v does not exceed KillLatencyBound %v", world.B16PullTime, latency.KillLatencyBound)
	}
}

// TestB16FaultIsCaughtOnlyWhenOn: the same seed passes with the honest
// runtime and fails the kill-latency bound with the B16 fault mode.
func TestB16FaultIsCaughtOnlyWhenOn(t *testing.T) {
	f := familyNamed(t, "kill-during-create")
	if r := RunSeed(f, 0, sim.RandomWalk{}, CheckOptions{}); r.Failed() {
		t.Fatalf("correct code: %v", r)
	}
	r := RunSeed(f, 0, sim.RandomWalk{}, CheckOptions{Mutant: "B16"})
	if !slices.ContainsFunc(r.Violations, func(v history.Violation) bool { return v.Invariant == "kill-latency" }) {
		t.Fatalf("B16: got %v, want a kill-latency violation", r)
	}
}

// TestCatalogueAssemblesBothWorlds: run.Mutants is the kubelet world's
// catalogue followed by the VK world's, and a mutant runs only on its own
// target's families.
func TestCatalogueAssemblesBothWorlds(t *testing.T) {
	all := Mutants()
	kubelet, vks := world.Mutants(), vkworld.Mutants()
	if len(all) != len(kubelet)+len(vks) {
		t.Fatalf("%d mutants, want %d kubelet + %d VK", len(all), len(kubelet), len(vks))
	}
	for i, v := range vks {
		if m := all[len(kubelet)+i]; m.Name != v.Name || m.Kind != KindVK {
			t.Errorf("entry %d: got %s (%s), want %s (VK)", len(kubelet)+i, m.Name, m.Kind, v.Name)
		}
	}
	if r := RunSeed(plan.Families()[0], 0, sim.RandomWalk{}, CheckOptions{Mutant: vks[0].Name}); r.Err == nil ||
		!strings.Contains(r.Err.Error(), "VK families only") {
		t.Errorf("a VK mutant on kubelet family %s: got %v, want refused", plan.Families()[0].Name, r.Err)
	}
	vkFam := plan.VKFamilies()[0]
	if r := RunSeed(vkFam, 0, sim.RandomWalk{}, CheckOptions{Mutant: "B2"}); r.Err == nil ||
		!strings.Contains(r.Err.Error(), "does not run on the VK families") {
		t.Errorf("kubelet mutant B2 on %s: got %v, want refused", vkFam.Name, r.Err)
	}
}
