package realkubelet

import (
	"slices"
	"strings"
	"testing"

	"github.com/podsim/podsim/plan"
)

// TestStateCoverageOnRealKubelet: every run on the real pod workers
// records state coverage in the simulated world's vocabulary (seven
// fields), with the states the committed answers show (read at rest,
// coverage.go) and not only "?"; the same seed reaches the same coverage;
// and the tracker is an observer only: without it the trace is the same
// and nothing is recorded.
func TestStateCoverageOnRealKubelet(t *testing.T) {
	states := map[string]bool{}
	for i, f := range plan.KubeletFamilies() {
		seed := uint64(1 + i)
		o := RunOptions{HoldWakes: i%2 == 1}
		a := Bubble(t, func() Result { return RunSeedWith(f, seed, o) })
		b := Bubble(t, func() Result { return RunSeedWith(f, seed, o) })
		o.noCoverage = true
		off := Bubble(t, func() Result { return RunSeedWith(f, seed, o) })
		if len(a.Coverage.Tuples) == 0 || len(a.Coverage.Transitions) == 0 {
			t.Fatalf("%s seed %d: no coverage: %v", f.Name, seed, a.Coverage)
		}
		if !slices.Equal(a.Coverage.Tuples, b.Coverage.Tuples) || !slices.Equal(a.Coverage.Transitions, b.Coverage.Transitions) {
			t.Fatalf("%s seed %d: the same seed reached other coverage", f.Name, seed)
		}
		if off.TraceSHA != a.TraceSHA || len(off.Coverage.Tuples) != 0 {
			t.Fatalf("%s seed %d: without the tracker trace %s (%d tuples), with it %s", f.Name, seed, off.TraceSHA,
				len(off.Coverage.Tuples), a.TraceSHA)
		}
		for _, tu := range a.Coverage.Tuples {
			fields := strings.Split(tu, "|")
			if len(fields) != 7 {
				t.Fatalf("%s seed %d: tuple %q has %d fields, want 7", f.Name, seed, tu, len(fields))
			}
			states[fields[0]] = true
		}
	}
	for _, s := range []string{"P", "S", "TR", "T", "D", "F", "-"} {
		if !states[s] {
			t.Errorf("no run showed state %q (states seen: %v)", s, states)
		}
	}
}
