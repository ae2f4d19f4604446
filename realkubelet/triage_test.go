package realkubelet

import (
	"os"
	"strings"
	"testing"

	"github.com/podsim/podsim/realkubelet/components"
	"github.com/podsim/podsim/realkubelet/planted"
)

// readClean is a testdata script that must run clean (no expect line: it
// names no known deviation).
func readClean(t *testing.T, file string) string {
	t.Helper()
	text, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return string(text)
}

// TestRejectedSyncPodEndsTerminal: a SyncPod of a pod rejected at
// admission, begun by a worker that outlived the pod's exit from config,
// runs with the status manager's Failed and takes upstream's terminal exit:
// it creates no containers, so K4 holds and the run is clean. Noting every
// SyncPod as one that creates containers (the driver before session 24)
// reports it as an unexplained K4.
func TestRejectedSyncPodEndsTerminal(t *testing.T) {
	text := readClean(t, "testdata/K4-rejected-syncpod-ends-terminal.clean")
	if r := runActorsScript(t, text, RunOptions{HoldWakes: true}); len(r.Unexplained()) > 0 {
		t.Fatalf("unexplained findings: %v", r.Findings)
	}
	r := runActorsScript(t, text, RunOptions{HoldWakes: true, plant: planted.NoteEveryRealSyncPod})
	got := kFindings(r, "K4")
	if len(got) != 1 || !strings.Contains(got[0], "UNEXPLAINED") {
		t.Fatalf("noting every SyncPod: K4 findings %q, want one unexplained", got)
	}
}

// TestRejectedPodRetried: the work queue's retry of a failed termination
// reaches the worker of a pod that was rejected at admission meanwhile (the
// pod manager keeps rejected pods, and getPodsToSync ranges over it), so
// the pod terminates and nothing is left owed. It fails (L1, L6) when the
// tick drops the syncs of rejected pods.
func TestRejectedPodRetried(t *testing.T) {
	text := readClean(t, "testdata/L1-rejected-pod-retry.clean")
	if r := runActorsScript(t, text, RunOptions{}); len(r.Unexplained()) > 0 {
		t.Fatalf("unexplained findings: %v", r.Findings)
	}
}

// TestGHNeedsTheRuntimeKill: GH's look-alike whose termination request at
// the ADD was a kill with the pod (one the kubelet never sends for a pod it
// never added, a bare contract input) instead of housekeeping's
// runtime-only kill: the same skipped admission and the same K5, but
// unexplained. And the shutdown's own planted bug (admission lets pods in)
// stays unexplained (TestShutdownIsJudgedByK5). Without the status
// component, which drops the plan's actions on a pod the API does not
// hold, the kill reaches the workers.
func TestGHNeedsTheRuntimeKill(t *testing.T) {
	const lookalike = "kill b\nshutdown spec-grace=5\ncreate b prio=1000\n"
	r := runActorsScript(t, lookalike, RunOptions{Real: components.Only(components.Shutdown, components.Eviction)})
	got := kFindings(r, "K5")
	if len(got) == 0 {
		t.Fatalf("the look-alike shows no K5: %v", r.Findings)
	}
	for _, f := range got {
		if !strings.Contains(f, "UNEXPLAINED") {
			t.Errorf("the look-alike's K5 is explained: %s", f)
		}
	}
}
