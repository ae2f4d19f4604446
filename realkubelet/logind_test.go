//go:build podsim_shutdownctx

package realkubelet

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/podsim/podsim/realkubelet/planted"
	"github.com/podsim/podsim/realkubelet/script"
)

// The logind restarts of RunOptions.LogindRestart, on a kubelet from v1.37
// (make real KUBE_ROOT=v1.37.2 builds this file).

// logindScript is the actors' shutdown script with logind restarting.
const logindScript = "logind-restart\n" + shutdownScript

// TestLogindRestartScript: in the actors' script, logind restarts before
// the shutdown event and the manager watches its third connection (the
// second failed); the run is as clean as without the restart, with the
// restart in the trace before ShutdownBegins.
func TestLogindRestartScript(t *testing.T) {
	r := runActorsScript(t, logindScript, RunOptions{})
	if u := r.Unexplained(); len(u) > 0 {
		t.Fatalf("unexplained findings: %v", u)
	}
	restarted := slices.IndexFunc(r.Trace, func(l string) bool { return strings.Contains(l, "LogindRestarted watching connection 3") })
	begins := slices.IndexFunc(r.Trace, func(l string) bool { return strings.Contains(l, "ShutdownBegins") })
	if restarted < 0 || begins < restarted {
		t.Fatalf("trace: LogindRestarted at line %d, ShutdownBegins at %d; want the restart first", restarted, begins)
	}
	plain := runActorsScript(t, shutdownScript, RunOptions{})
	if slices.ContainsFunc(plain.Trace, func(l string) bool { return strings.Contains(l, "LogindRestarted") }) {
		t.Fatal("a run without LogindRestart notes a restart")
	}
}

// TestLogindRestartCatches: P7 names a connection the manager did not
// close (the fake loses its Close) and a manager that never watches again
// (the fake refuses every reconnect), unexplained; on the clean run its
// only finding is upstream's stale lock release, GJ.
func TestLogindRestartCatches(t *testing.T) {
	for _, c := range []struct {
		plant planted.Bug
		want  string
	}{
		{planted.LogindLeak, "connection 1 of 3 was replaced or failed to start and never closed"},
		{planted.LogindGone, "did not watch logind again within 10s of its restart"},
	} {
		got := unexplainedP7(runActorsScript(t, logindScript, RunOptions{plant: c.plant}))
		if len(got) != 1 || !strings.Contains(got[0], c.want) {
			t.Errorf("plant %d: unexplained P7 %q, want one naming %q", c.plant, got, c.want)
		}
	}
	clean := runActorsScript(t, logindScript, RunOptions{})
	if got := findingsOf(clean, "conform", "P7"); len(got) != 1 || clean.Classes()[0] != "GJ" ||
		!strings.Contains(got[0], "released inhibit lock 2 a second time") {
		t.Errorf("clean run: P7 %q (classes %q), want GJ's release of lock 2", got, clean.Classes())
	}
}

// TestLogindRestartSweep: the node-shutdown family's first 40 seeds in
// both wake-up modes with logind restarting: no unexplained finding, the
// same trace twice, and a restart in every run that began a shutdown.
func TestLogindRestartSweep(t *testing.T) {
	faultSweep(t, RunOptions{LogindRestart: true}, script.MoveLogindRestart, func(r Result) string {
		began := slices.ContainsFunc(r.Trace, func(l string) bool { return strings.Contains(l, "ShutdownBegins") })
		restarted := slices.ContainsFunc(r.Trace, func(l string) bool { return strings.Contains(l, "LogindRestarted") })
		if began != restarted {
			return fmt.Sprintf("shutdown began %v, logind restarted %v", began, restarted)
		}
		return ""
	})
}
