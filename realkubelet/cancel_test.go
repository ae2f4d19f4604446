package realkubelet

import (
	"slices"
	"strings"
	"testing"

	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/realkubelet/planted"
)

// cancelSeeds is how many shutdown-cancel seeds a mode the tests run.
const cancelSeeds = 30

// TestShutdownCancelFamily: shutdown-cancel's first seeds in both modes on
// the real node shutdown manager: nothing unexplained (GJ, which the
// pinned kubelet meets at every cancellation read after a shutdown's
// processing, is explained), the same trace twice, and the family's
// situations reached on this target too: a cancellation read, a pod
// created after it (admitted, its SyncPod begun), a pod rejected before
// it, a second shutdown.
func TestShutdownCancelFamily(t *testing.T) {
	reached := map[string]int{}
	cleanSeeds(t, "shutdown-cancel", cancelSeeds, func(r Result) {
		for _, s := range cancelSituations(r.Trace) {
			reached[s]++
		}
	})
	t.Logf("%d runs: %v", 2*cancelSeeds, reached)
	for _, s := range []string{"cancel read", "created after the read", "shutdown again", "rejected"} {
		if reached[s] == 0 {
			t.Errorf("no run reached %q: %v", s, reached)
		}
	}
}

// cancelSituations reads a run's trace for the family's situations.
func cancelSituations(trace []string) []string {
	var out []string
	read := slices.IndexFunc(trace, func(l string) bool { return strings.HasSuffix(l, "noted kubelet ShutdownCancelled") })
	if read < 0 {
		return nil
	}
	out = append(out, "cancel read")
	after := trace[read:]
	if slices.ContainsFunc(after, func(l string) bool {
		return strings.Contains(l, "client UpdatePod") && strings.Contains(l, " create v1")
	}) {
		out = append(out, "created after the read")
	}
	if slices.ContainsFunc(after, func(l string) bool { return strings.Contains(l, "noted kubelet ShutdownBegins") }) {
		out = append(out, "shutdown again")
	}
	if slices.ContainsFunc(trace, func(l string) bool { return strings.Contains(l, "PhaseWritten{UID:d Phase:Failed}") }) {
		out = append(out, "rejected")
	}
	return out
}

// TestCancelLostIsCaught: with the cancellation taken for read but never
// sent (planted), the manager keeps rejecting pods and, never having taken
// its lock again, meets the next shutdown holding none; P7 says both in
// some of the family's runs (TestShutdownCancelFamily: clean without it).
func TestCancelLostIsCaught(t *testing.T) {
	f, _ := plan.FamilyNamed("shutdown-cancel")
	caught, lockless := 0, 0
	for seed := uint64(1); seed <= cancelSeeds; seed++ {
		r := Bubble(t, func() Result { return RunSeedWith(f, seed, RunOptions{plant: planted.CancelLost}) })
		// A second shutdown then finds the manager holding no lock (it
		// never took one again), and releasing its lock a second time.
		for _, u := range unexplainedP7(r) {
			if strings.Contains(u, "rejected pod") && strings.Contains(u, "after it was sent the shutdown's cancellation") {
				caught++
			}
			if strings.Contains(u, "held no inhibit lock when logind announced the shutdown") {
				lockless++
			}
		}
	}
	if caught == 0 || lockless == 0 {
		t.Fatalf("the lost cancellation: %d rejections and %d lockless shutdowns caught in %d seeds, want some of each", caught, lockless, cancelSeeds)
	}
	t.Logf("caught in %d rejections and %d lockless shutdowns over %d seeds", caught, lockless, cancelSeeds)
}
