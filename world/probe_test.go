package world

import (
	"flag"
	"fmt"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/sim"
)

var probeSeeds = flag.Uint64("probe.seeds", 0, "TestIncrementalProbe: seeds per family and strategy (0: 40, 8 with -short)")

// probeRun runs one seed of f with every probe compared against one that
// asks every query (probe.Memo.Check) and returns the first difference and
// the number of releases that carried a probe.
func probeRun(t *testing.T, f plan.Family, seed uint64, strategy sim.Strategy, mutant string, observableOnly bool) (string, int) {
	t.Helper()
	st := plan.SeedStreams(seed)
	w := NewWorld(f.Generate(st.Plan), st.Schedule, st.Faults, strategy)
	if err := w.Reintroduce(mutant); err != nil {
		t.Fatal(err)
	}
	if observableOnly {
		w.InternalInvariantsOff()
	}
	checkProbes(w)
	releases := 0
	w.Observe(func(ev history.Event) {
		if ev.Probe != nil {
			releases++
		}
	})
	_ = w.Run() // a mutant's run may fail; the probes are what is checked
	return w.probes.Mismatch(), releases
}

// checkProbes makes w's probe compare each of its probes and invariant
// checks with one that asks everything (probe.Memo.Check).
func checkProbes(w *World) {
	w.probes.Check(func() string {
		return fmt.Sprintf("at %v (step %d, goroutine %s)", w.S.Elapsed(), w.S.Steps(), w.S.Goroutine())
	})
}

// TestIncrementalProbe: the probe asks only what the critical section can
// have changed (World.probe), and at every release of the pod lock its
// answers equal those of a probe that asks every query for every UID and
// full name — in every kubelet family under both strategies, with and
// without the internal invariants, and under every catalogued mutant on its
// gate families. It also fails if the check cannot see a difference: a
// probe that leaves out a UID the critical section touched must be caught.
func TestIncrementalProbe(t *testing.T) {
	seeds := uint64(40)
	if testing.Short() {
		seeds = 8
	}
	if *probeSeeds > 0 {
		seeds = *probeSeeds
	}
	for _, f := range plan.KubeletFamilies() {
		for _, strategy := range []sim.Strategy{sim.RandomWalk{}, sim.PCT{Depth: 3, Steps: 2000}} {
			for seed := range seeds {
				if bad, n := probeRun(t, f, seed, strategy, "", seed%2 == 1); bad != "" || n == 0 {
					t.Fatalf("%s %v seed %d (%d releases): %s", f.Name, strategy, seed, n, bad)
				}
			}
		}
	}
	families := map[string]plan.Family{}
	for _, f := range plan.KubeletFamilies() {
		families[f.Name] = f
	}
	for _, m := range Mutants() {
		for _, name := range m.Families {
			f, ok := families[name]
			if !ok {
				continue
			}
			for seed := range seeds / 2 {
				if bad, _ := probeRun(t, f, seed, sim.RandomWalk{}, m.Name, false); bad != "" {
					t.Fatalf("mutant %s, %s seed %d: %s", m.Name, f.Name, seed, bad)
				}
			}
		}
	}
}

// TestIncrementalProbeCheckCatches: the comparison behind
// TestIncrementalProbe sees a probe that misses a change: with every touched
// UID forgotten (a probe that re-asks nothing but what PodsSynced or a new
// UID forces), the first seed of early-kill already differs.
func TestIncrementalProbeCheckCatches(t *testing.T) {
	f := plan.KubeletFamilies()[0]
	for _, g := range plan.KubeletFamilies() {
		if g.Name == "early-kill" {
			f = g
		}
	}
	st := plan.SeedStreams(0)
	w := NewWorld(f.Generate(st.Plan), st.Schedule, st.Faults, sim.RandomWalk{})
	checkProbes(w)
	w.Observe(func(history.Event) { w.probes.ForgetTouched() })
	_ = w.Run()
	if w.probes.Mismatch() == "" {
		t.Fatal("a probe that forgets the touched UIDs went unnoticed")
	}
}

// TestSyncKnownProbeCheckCatches: the probe of a SyncKnownPods release asks
// again only the records it purged and the orphans' (probe's
// syncKnownTouched); a probe that forgets those (probe.Memo.ForgetKnown)
// is caught by the comparison in
// the first seeds of swarm, whose deletes leave records to purge.
func TestSyncKnownProbeCheckCatches(t *testing.T) {
	for seed := range uint64(20) {
		w := seedWorld(t, "swarm", "", seed)
		checkProbes(w)
		w.probes.ForgetKnown()
		w.Observe(func(history.Event) {}) // the probe is taken only for an observer
		_ = w.Run()
		if w.probes.Mismatch() != "" {
			return
		}
	}
	t.Fatal("a SyncKnownPods probe that forgets purged and orphaned records went unnoticed in 20 swarm seeds")
}

// TestTouchedInvariantsCheckCatches: the comparison behind
// TestIncrementalProbe also sees an invariant check that misses a change
// (World.checkInvariants): with every touched UID forgotten, the touched
// check passes a release at which mutant B2 broke an invariant in a
// worker's critical section, which the check of every record reports.
// (G3's, G4's and B7's breaks are seen by checks of every record, at
// SyncKnownPods releases or with static pods about, even so.)
func TestTouchedInvariantsCheckCatches(t *testing.T) {
	for seed := range uint64(20) {
		w := seedWorld(t, "update-storm", "B2", seed)
		checkProbes(w)
		caught := false
		w.Observe(func(history.Event) {
			w.probes.ForgetTouched()
			// The probes differ too (TestIncrementalProbeCheckCatches); only the
			// first difference is kept, so each is read and forgotten.
			m := w.probes.Mismatch()
			caught = caught || strings.HasPrefix(m, "invariants at")
		})
		_ = w.Run()
		if caught {
			return
		}
	}
	t.Fatal("an invariant check that forgets the touched UIDs went unnoticed in 20 update-storm seeds under B2")
}

// seedWorld is the world of seed of the kubelet family called name, with
// mutant (if not "") re-introduced.
func seedWorld(t *testing.T, name, mutant string, seed uint64) *World {
	t.Helper()
	for _, f := range plan.KubeletFamilies() {
		if f.Name == name {
			st := plan.SeedStreams(seed)
			w := NewWorld(f.Generate(st.Plan), st.Schedule, st.Faults, sim.RandomWalk{})
			if err := w.Reintroduce(mutant); err != nil {
				t.Fatal(err)
			}
			return w
		}
	}
	t.Fatalf("no kubelet family %s", name)
	return nil
}

// TestPodIndexes: World.pod finds a one-letter UID's pod by its letter
// (byLetter): at every release of the pod lock, in every kubelet family,
// it finds what a scan finds. (The probe's own index of the pods is
// world/probe's TestIndex.)
func TestPodIndexes(t *testing.T) {
	for _, f := range plan.KubeletFamilies() {
		for seed := range uint64(4) {
			w, releases := seedWorld(t, f.Name, "", seed), 0
			w.Observe(func(ev history.Event) {
				if ev.Kind != history.LockReleasing {
					return
				}
				releases++
				for i, p := range w.inOrder {
					if w.uids[i] != p.action.UID {
						t.Fatalf("%s seed %d: pod %s at %d, UID %s there", f.Name, seed, p.action.UID, i, w.uids[i])
					}
					// World.pod by letter finds what a scan finds, from a copy of the UID.
					if got := w.pod(types.UID(strings.Clone(string(p.action.UID)))); got != p {
						t.Fatalf("%s seed %d: pod(%s) is %p, want %p", f.Name, seed, p.action.UID, got, p)
					}
				}
				for _, uid := range []types.UID{"z", "zz", "A", ""} {
					if got, want := w.pod(uid), scanPod(w, uid); got != want {
						t.Fatalf("%s seed %d: pod(%q) is %p, a scan finds %p", f.Name, seed, uid, got, want)
					}
				}
			})
			_ = w.Run()
			if releases == 0 {
				t.Fatalf("%s seed %d: no release", f.Name, seed)
			}
		}
	}
}

// scanPod is World.pod without the letter index.
func scanPod(w *World, uid types.UID) *configPod {
	for _, p := range w.inOrder {
		if p.action.UID == uid {
			return p
		}
	}
	return nil
}
