package world

import (
	"flag"
	"reflect"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/model/ops"
	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/sim"
)

var probeSeeds = flag.Uint64("probe.seeds", 0, "TestIncrementalProbe: seeds per family and strategy (0: 40, 8 with -short)")

// probeRun runs one seed of f with every probe compared against one that
// asks every query (probeMemo.check) and returns the first difference and
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
	w.probes.check = true
	releases := 0
	w.Observe(func(ev history.Event) {
		if ev.Probe != nil {
			releases++
		}
	})
	_ = w.Run() // a mutant's run may fail; the probes are what is checked
	return w.probes.mismatch, releases
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
	w.probes.check = true
	w.Observe(func(history.Event) { w.probes.touched = w.probes.touched[:0] })
	_ = w.Run()
	if w.probes.mismatch == "" {
		t.Fatal("a probe that forgets the touched UIDs went unnoticed")
	}
}

// TestSyncKnownProbeCheckCatches: the probe of a SyncKnownPods release asks
// again only the records it purged and the orphans' (syncKnownTouched); a
// probe that forgets those (forgetKnown) is caught by the comparison in
// the first seeds of swarm, whose deletes leave records to purge.
func TestSyncKnownProbeCheckCatches(t *testing.T) {
	for seed := range uint64(20) {
		w := seedWorld(t, "swarm", "", seed)
		w.probes.check, w.probes.forgetKnown = true, true
		w.Observe(func(history.Event) {}) // the probe is taken only for an observer
		_ = w.Run()
		if w.probes.mismatch != "" {
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
		w.probes.check = true
		caught := false
		w.Observe(func(history.Event) {
			w.probes.touched = w.probes.touched[:0]
			// The probes differ too (TestIncrementalProbeCheckCatches); only the
			// first difference is kept, so each is read and forgotten.
			caught = caught || strings.HasPrefix(w.probes.mismatch, "invariants at")
			w.probes.mismatch = ""
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

// TestPodIndexes: the probe finds a pod's answers and its full name's
// mirror answer by index (configPod.at, configPod.nameAt), not by search,
// and World.pod finds a one-letter UID's pod by its letter (byLetter).
// At every release of the pod lock, in every kubelet family, each index
// names its pod: a stale index (a pod inserted before others, a full name
// added) fails here, though TestIncrementalProbe may not see it (a family
// whose static pods share one full name).
func TestPodIndexes(t *testing.T) {
	for _, f := range plan.KubeletFamilies() {
		for seed := range uint64(4) {
			w, releases := seedWorld(t, f.Name, "", seed), 0
			w.Observe(func(ev history.Event) {
				if ev.Kind != history.LockReleasing {
					return
				}
				releases++
				names := w.fullNames()
				for i, p := range w.inOrder {
					if p.at != i || w.uids[p.at] != p.action.UID || names[p.nameAt] != p.fullName() {
						t.Fatalf("%s seed %d: pod %s at %d (index %d), name %q at %d", f.Name, seed, p.action.UID, i, p.at, p.fullName(), p.nameAt)
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

// TestProbeKinds: deliverOut hands noteForProbe only the kinds in
// probeKinds; an event of any other kind, of any input, held or not, would
// have changed nothing of the probe's memo. Fails when a kind noteForProbe
// reads is left out of probeKinds.
func TestProbeKinds(t *testing.T) {
	inputs := []ops.Input{nil, ops.UpdatePod{Pod: ops.Pod{UID: "u2"}}, ops.KillPodNowDone{UID: "u2"}, ops.Query{},
		ops.SyncKnownPods{Desired: []string{"u1"}}, ops.CancelFired{UID: "u3"}, ops.CompletionFired{UID: "u3"},
		ops.SyncBegin{UID: "u1"}}
	fresh := func() probeMemo {
		return probeMemo{last: &history.Probe{}, touched: []types.UID{"u1"}, holder: "g",
			calls: []probeCall{{g: "g", id: 3, uid: "u1"}, {g: "h", id: 4, all: true}}}
	}
	for k := history.EventKind(0); k < history.NumEventKinds; k++ {
		if probeKinds&(1<<k) != 0 {
			continue
		}
		for _, in := range inputs {
			for _, g := range []string{"g", "h", "worker/u1", "other"} {
				w := &World{probes: fresh()}
				w.noteForProbe(&history.Event{Kind: k, Goroutine: g, ID: 3, Input: in})
				if want := fresh(); !reflect.DeepEqual(w.probes, want) {
					t.Fatalf("a %v event (input %#v, goroutine %s) changed the memo: %+v, was %+v", k, in, g, w.probes, want)
				}
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
