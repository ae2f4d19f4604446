package realkubelet

import (
	"slices"
	"strings"
	"testing"
)

// TestNearMissesOnRealKubelet: with RunOptions.NearMisses a run on the
// real pod workers records the oracles' near misses (package
// oracle/nearmiss) in its coverage, sorted, the same for the same seed;
// without it none, and nothing else of the run changes (trace, tuples,
// verdict). error-shapes seed 1 answers queries between a failed
// SyncTerminatedPod and the worker's next callback; swarm-restart seed 15
// restarts the kubelet while a killPodNow wait is in flight; swarm-restart
// seed 1 meets neither.
func TestNearMissesOnRealKubelet(t *testing.T) {
	for _, c := range []struct {
		family string
		seed   uint64
		prefix string // a near miss met begins so; "" for none
	}{
		{"error-shapes", 1, "linearize/query-in-transit/"},
		{"swarm-restart", 15, "liveness/L10/open-at-restart/KillPodNow"},
		{"swarm-restart", 1, ""},
	} {
		f := familyNamed(t, c.family)
		o := RunOptions{NearMisses: true}
		a := Bubble(t, func() Result { return RunSeedWith(f, c.seed, o) })
		b := Bubble(t, func() Result { return RunSeedWith(f, c.seed, o) })
		o.NearMisses = false
		off := Bubble(t, func() Result { return RunSeedWith(f, c.seed, o) })
		if !slices.Equal(a.Coverage.Near, b.Coverage.Near) || !slices.IsSorted(a.Coverage.Near) {
			t.Fatalf("%s seed %d: near misses %q, then %q (want the same, sorted)", f.Name, c.seed, a.Coverage.Near, b.Coverage.Near)
		}
		met := slices.ContainsFunc(a.Coverage.Near, func(k string) bool { return strings.HasPrefix(k, c.prefix) })
		if c.prefix == "" && len(a.Coverage.Near) > 0 || c.prefix != "" && !met {
			t.Errorf("%s seed %d: near misses %q, want one beginning %q", f.Name, c.seed, a.Coverage.Near, c.prefix)
		}
		if len(off.Coverage.Near) != 0 || off.TraceSHA != a.TraceSHA || !slices.Equal(off.Coverage.Tuples, a.Coverage.Tuples) ||
			!slices.Equal(off.Classes(), a.Classes()) || off.Failed() != a.Failed() {
			t.Fatalf("%s seed %d: without near misses %q, trace %s, classes %v; with them trace %s, classes %v",
				f.Name, c.seed, off.Coverage.Near, off.TraceSHA, off.Classes(), a.TraceSHA, a.Classes())
		}
	}
}
