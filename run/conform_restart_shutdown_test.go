package run

import (
	"testing"

	"github.com/podsim/podsim/sim"
)

// TestConformShutdownsAcrossRestarts: swarm-restart seed 1889 (random
// walk) asks, at one instant, for a shutdown, a restart, a second shutdown
// and a second restart, and the shutdown actors ran only after the
// restarts. Each shutdown asks the kubelet process running when it is
// asked for (world.shutdown), so the actors of the first two give up with
// their processes; the correct pod workers pass every oracle. (Before, the
// first actor shut the new kubelet down while the restart re-added its
// pods, and the second shut down the next one, which P4 and P7 flagged.)
func TestConformShutdownsAcrossRestarts(t *testing.T) {
	f := familyNamed(t, "swarm-restart")
	rp := ReplaySeed(f, 1889, sim.RandomWalk{}, CheckOptions{ObservableOnly: true})
	if rp.Err != nil || rp.Failed() {
		t.Fatalf("seed 1889: err %v, violations %v", rp.Err, rp.Violations)
	}
}
