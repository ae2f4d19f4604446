package run

import (
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/sim"
	"github.com/podsim/podsim/vkworld"
)

// TestVKCoverageIsAnObserverOnly: a VK run judged with its oracle and its
// coverage tracker has the trace of the same world run with no observer at
// all, under both strategies and with the fault points armed or not; and
// it records coverage.
func TestVKCoverageIsAnObserverOnly(t *testing.T) {
	for _, f := range plan.VKFamilies() {
		for _, st := range []sim.Strategy{sim.RandomWalk{}, sim.PCT{Depth: 3, Steps: 2000}} {
			for seed := range uint64(15) {
				fp := seed%3 == 0
				r := RunSeed(f, seed, st, CheckOptions{FaultPoints: fp})
				streams := plan.SeedStreams(seed)
				w := vkworld.NewWorld(f.Generate(streams.Plan), streams.Schedule, streams.Faults, st)
				if fp {
					w.FaultPointsOn()
				}
				err := w.Run()
				if w.S.TraceSHA256() != r.TraceSHA || (err == nil) != (r.Err == nil) {
					t.Fatalf("%s seed %d %v: the judged run's trace %s differs from the bare world's %s", f.Name, seed, st,
						r.TraceSHA, w.S.TraceSHA256())
				}
				if len(r.Coverage.Tuples) == 0 || len(r.Coverage.Transitions) == 0 {
					t.Fatalf("%s seed %d: no coverage recorded: %v", f.Name, seed, r.Coverage)
				}
			}
		}
	}
}

// TestVKCoverageIsDeterministic: a VK seed reaches the same tuples and
// transitions run again, at GOMAXPROCS 1 and 4; other seeds reach other
// coverage.
func TestVKCoverageIsDeterministic(t *testing.T) {
	for _, f := range plan.VKFamilies() {
		distinct := map[string]bool{}
		for seed := range uint64(10) {
			first := RunSeed(f, seed, sim.RandomWalk{}, CheckOptions{})
			for _, procs := range []int{1, 4} {
				prev := runtime.GOMAXPROCS(procs)
				again := RunSeed(f, seed, sim.RandomWalk{}, CheckOptions{})
				runtime.GOMAXPROCS(prev)
				if !slices.Equal(again.Coverage.Tuples, first.Coverage.Tuples) ||
					!slices.Equal(again.Coverage.Transitions, first.Coverage.Transitions) {
					t.Fatalf("%s seed %d at GOMAXPROCS %d: other coverage run again", f.Name, seed, procs)
				}
			}
			distinct[strings.Join(first.Coverage.Tuples, "\n")] = true
		}
		if len(distinct) < 2 {
			t.Fatalf("%s: 10 seeds reached the same tuples: the tuple sees nothing of the runs", f.Name)
		}
	}
}

// TestVKCoverageSeesTheFamiliesSituations: the situations each VK family
// is made for show in its tuples within 200 seeds: a pod re-created
// while its predecessor is still there (vk-delete-recreate), a pod
// deleting when the controller starts (vk-startup), failed status writes
// and another writer's edits (vk-status-faults), a restarted controller
// (vk-swarm).
func TestVKCoverageSeesTheFamiliesSituations(t *testing.T) {
	want := map[string][]string{
		"vk-delete-recreate": {"|shared|"},
		"vk-startup":         {"del|-|-|-|-|-|delreq-client|start|-"},
		"vk-status-faults":   {"|transient|failed|", "|edit|"},
		"vk-swarm":           {"+restarted|"},
	}
	for _, f := range plan.VKFamilies() {
		for _, piece := range want[f.Name] {
			found := false
			for seed := uint64(0); seed < 200 && !found; seed++ {
				for _, tu := range RunSeed(f, seed, sim.RandomWalk{}, CheckOptions{}).Coverage.Tuples {
					found = found || strings.Contains(tu, piece)
				}
			}
			if !found {
				t.Errorf("%s: no tuple with %q in 200 seeds", f.Name, piece)
			}
		}
	}
}
