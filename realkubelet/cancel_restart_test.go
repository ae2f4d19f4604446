//go:build podsim_shutdownctx

package realkubelet

import (
	"strings"
	"testing"

	"github.com/podsim/podsim/plan"
)

// TestShutdownCancelWithRestart: with logind restarting before every
// shutdown event, shutdown-cancel's first seeds are clean, and those that
// shut the node down again restart logind twice (a kubelet from v1.37:
// make real KUBE_ROOT=v1.37.2).
func TestShutdownCancelWithRestart(t *testing.T) {
	f, _ := plan.FamilyNamed("shutdown-cancel")
	twice := 0
	for seed := uint64(1); seed <= cancelSeeds; seed++ {
		r := Bubble(t, func() Result { return RunSeedWith(f, seed, RunOptions{LogindRestart: true}) })
		if u := r.Unexplained(); len(u) > 0 {
			t.Fatalf("seed %d: unexplained %v", seed, u)
		}
		restarts, begins := 0, 0
		for _, l := range r.Trace {
			restarts += strings.Count(l, "noted kubelet LogindRestarted")
			begins += strings.Count(l, "noted kubelet ShutdownBegins")
		}
		if restarts != begins {
			t.Fatalf("seed %d: %d logind restarts for %d shutdowns", seed, restarts, begins)
		}
		if restarts == 2 {
			twice++
		}
	}
	if twice == 0 {
		t.Errorf("no seed of %d shut down twice with logind restarting", cancelSeeds)
	}
	t.Logf("%d of %d seeds restarted logind twice", twice, cancelSeeds)
}
