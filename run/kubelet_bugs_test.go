package run

import (
	"strings"
	"testing"

	"github.com/podsim/podsim/sim"
	"github.com/podsim/podsim/world"
)

// TestKubeletBugsAreCaught: each K mutant (a field of KubeletBugs, switched
// on by name) re-introduces a bug of docs/bugs.md that the invariant named in
// its doc comment catches on some seed of the family built for it; the
// same seed passes with it off.
func TestKubeletBugsAreCaught(t *testing.T) {
	for _, tc := range []struct {
		name      string
		bugs      world.KubeletBugs
		family    string
		invariant string
	}{
		{"B4", world.KubeletBugs{B4ShutdownKeepsPhase: true}, "node-shutdown", "K5"},
		{"B5", world.KubeletBugs{B5AdmitCountsRejected: true}, "rejected-admission", "K1"},
		{"B10", world.KubeletBugs{B10StatusIgnoresRunning: true}, "rejected-admission", "K2"},
		{"B13", world.KubeletBugs{B13NoTerminalDeleteFilter: true}, "rejected-admission", "L7"},
		{"V2", world.KubeletBugs{V2ReaperKeyedByName: true}, "recreate-same-name", "K6"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := familyNamed(t, tc.family)
			for seed := uint64(0); seed < 300; seed++ {
				r := RunSeed(f, seed, sim.RandomWalk{}, CheckOptions{Mutant: tc.name})
				for _, v := range r.Violations {
					if v.Oracle == "kubelet" && v.Invariant == tc.invariant {
						t.Logf("%s caught on %s seed %d: %v", tc.name, tc.family, seed, v)
						if clean := RunSeed(f, seed, sim.RandomWalk{}, CheckOptions{}); clean.Failed() {
							t.Fatalf("seed %d fails without the bug too: %v", seed, clean)
						}
						return
					}
				}
			}
			t.Fatalf("%s: %s never reported %s in 300 seeds of %s", tc.name, tc.bugs, tc.invariant, tc.family)
		})
	}
}

// TestKubeletBugsString names the fields that are on.
func TestKubeletBugsString(t *testing.T) {
	if got := (world.KubeletBugs{}).String(); got != "none" {
		t.Errorf("got %q, want none", got)
	}
	got := world.KubeletBugs{B5AdmitCountsRejected: true, B13NoTerminalDeleteFilter: true}.String()
	if want := "B5AdmitCountsRejected,B13NoTerminalDeleteFilter"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if !strings.Contains(world.KubeletBugs{B4ShutdownKeepsPhase: true}.String(), "B4") {
		t.Error("B4 not named")
	}
}
