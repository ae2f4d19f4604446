package realkubelet

import (
	"slices"
	"strings"
	"testing"

	"github.com/podsim/podsim/realkubelet/planted"
)

// restartShutdownSeeds is how many shutdown-restart seeds a mode the
// tests run.
const restartShutdownSeeds = 30

// TestShutdownRestartFamily: shutdown-restart's first seeds in both modes
// on the real node shutdown manager and pod workers: nothing unexplained
// (GK, which every pod the restarted kubelet admits during the shutdown
// meets on the pinned kubelet, is explained), the same trace twice, and the
// family's situations reached: a restart after the shutdown began, held
// in some runs until its processing ended, and a pod the new process
// admitted and started during the shutdown.
func TestShutdownRestartFamily(t *testing.T) {
	reached := map[string]int{}
	cleanSeeds(t, "shutdown-restart", restartShutdownSeeds, func(r Result) {
		begun := slices.IndexFunc(r.Trace, func(l string) bool { return strings.Contains(l, "ShutdownBegins") })
		if begun >= 0 && slices.ContainsFunc(r.Trace[begun:], func(l string) bool { return strings.Contains(l, "restarted") }) {
			reached["restart in the shutdown"]++
		}
		if slices.Contains(r.Classes(), "GK") {
			reached["GK"]++
		}
	})
	t.Logf("%d runs: %v", 2*restartShutdownSeeds, reached)
	for _, s := range []string{"restart in the shutdown", "GK"} {
		if reached[s] < restartShutdownSeeds {
			t.Errorf("fewer than half the runs reached %q: %v", s, reached)
		}
	}
}

// gkScript is testdata/GK-restart-forgets-shutdown.script's moves, with a
// pod a from before the shutdown and b created during it before the
// restart.
const gkScript = "create a\nrelease a ok\nshutdown groups=0:2\ncreate b\ndeliver a\nrelease a ok\nrestart\ncreate e\n"

// TestGKNeedsAnUnheardManager: in GK's shape the K5s of pod e, created
// after the restart, and of pod b, which the old process rejected and the
// new one admits again (its Failed status not yet in config), are GK's; a
// kubelet whose restarted manager is told of
// the shutdown and admits e all the same is not GK (planted
// RestartToldAdmits), nor is an admission bug in the process that was
// told (planted AdmitInShutdown: b's K5, before the restart).
func TestGKNeedsAnUnheardManager(t *testing.T) {
	got := kFindings(runActorsScript(t, gkScript, RunOptions{}), "K5")
	if len(got) != 2 || !strings.HasPrefix(got[0], "[GK]") || !strings.Contains(got[0], "pod b") ||
		!strings.HasPrefix(got[1], "[GK]") || !strings.Contains(got[1], "pod e") {
		t.Fatalf("K5 findings %q, want GK's of pods b and e", got)
	}
	for _, c := range []struct {
		bug  planted.Bug
		want string
	}{{planted.RestartToldAdmits, "pod e"}, {planted.AdmitInShutdown, "pod b"}} {
		got := kFindings(runActorsScript(t, gkScript, RunOptions{plant: c.bug}), "K5")
		if !slices.ContainsFunc(got, func(f string) bool { return strings.Contains(f, c.want) && strings.Contains(f, "UNEXPLAINED") }) {
			t.Errorf("planted bug %d: K5 findings %q, want an unexplained one of %s", c.bug, got, c.want)
		}
	}
}
