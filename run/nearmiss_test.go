package run

import (
	"slices"
	"testing"

	"github.com/podsim/podsim/sim"
)

// TestNearMissesOfARun: the judged run records the oracles' near misses
// (package oracle/nearmiss) in its Coverage when CheckOptions.NearMisses
// asks, and none, with the same trace, when it does not. Seed 1984 of swarm-restart
// restarts the kubelet while a kill is in flight in another client (the
// run in which workers.go's Shutdown without `p.stopped = true` leaks a
// worker, mutation-hard.txt's 437); seed 295 answers a client's query of
// a pod between its terminal SyncPod and the termination that follows;
// seed 0 meets neither.
func TestNearMissesOfARun(t *testing.T) {
	f := familyNamed(t, "swarm-restart")
	for _, c := range []struct {
		seed      uint64
		want, not string
	}{
		{1984, "liveness/L10/open-at-restart/UpdatePod-kill", "linearize/query-in-transit/IsPodTerminationRequested/SyncPod-terminal/applied"},
		{295, "linearize/query-in-transit/IsPodTerminationRequested/SyncPod-terminal/applied", "liveness/L10/open-at-restart/UpdatePod-kill"},
		{0, "", "liveness/L10/open-at-restart/UpdatePod-kill"},
	} {
		r := RunSeed(f, c.seed, sim.RandomWalk{}, CheckOptions{NearMisses: true})
		if r.Failed() {
			t.Fatalf("seed %d: %v", c.seed, r)
		}
		if c.want != "" && !slices.Contains(r.Coverage.Near, c.want) || slices.Contains(r.Coverage.Near, c.not) {
			t.Errorf("seed %d: near misses %q, want %q and not %q", c.seed, r.Coverage.Near, c.want, c.not)
		}
		if !slices.IsSorted(r.Coverage.Near) {
			t.Errorf("seed %d: near misses not sorted: %q", c.seed, r.Coverage.Near)
		}
		if off := RunSeed(f, c.seed, sim.RandomWalk{}, CheckOptions{}); len(off.Coverage.Near) > 0 || off.TraceSHA != r.TraceSHA {
			t.Errorf("seed %d without NearMisses: near misses %q (want none), trace %s (want %s)", c.seed, off.Coverage.Near, off.TraceSHA, r.TraceSHA)
		}
	}
}

// TestVKNearMissesOfARun: the VK oracle's near misses reach the judged
// run's Coverage too, on the VK world (judgeVK), and only when
// CheckOptions.NearMisses asks: vk-swarm seed 4 cancels the controller
// while a pod's newest status has not reached the API (VK2); seed 0 does
// not.
func TestVKNearMissesOfARun(t *testing.T) {
	f := familyNamed(t, "vk-swarm")
	const key = "vk/VK2/behind-at-cancel"
	for _, c := range []struct {
		seed uint64
		met  bool
	}{{4, true}, {0, false}} {
		r := RunSeed(f, c.seed, sim.RandomWalk{}, CheckOptions{NearMisses: true})
		if r.Failed() {
			t.Fatalf("seed %d: %v", c.seed, r)
		}
		if slices.Contains(r.Coverage.Near, key) != c.met || !slices.IsSorted(r.Coverage.Near) {
			t.Errorf("seed %d: near misses %q, want %q: %v", c.seed, r.Coverage.Near, key, c.met)
		}
		if off := RunSeed(f, c.seed, sim.RandomWalk{}, CheckOptions{}); len(off.Coverage.Near) > 0 || off.TraceSHA != r.TraceSHA {
			t.Errorf("seed %d without NearMisses: near misses %q (want none), trace %s (want %s)", c.seed,
				off.Coverage.Near, off.TraceSHA, r.TraceSHA)
		}
	}
}
