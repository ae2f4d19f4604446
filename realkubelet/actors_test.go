package realkubelet

import (
	"strings"
	"testing"
	"testing/synctest"

	"github.com/podsim/podsim/realkubelet/components"
	"github.com/podsim/podsim/realkubelet/script"
)

// shutdownScript: a runs; the node shuts down (one group, 2 s); the real
// manager's kill of a is delivered and a terminates; b is created during
// the shutdown and, if it reached the workers, starts.
const shutdownScript = `create a
release a ok
shutdown groups=0:2
deliver a
release a ok
release a ok
create b
release b ok
`

func runActorsScript(t *testing.T, text string, o RunOptions) Result {
	t.Helper()
	moves, _, err := script.Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	var r Result
	synctest.Test(t, func(t *testing.T) { r = RunMovesWith(moves, o) })
	return r
}

func kFindings(r Result, inv string) []string {
	var out []string
	for _, f := range r.Findings {
		if f.Oracle == "kubelet" && f.Invariant == inv {
			out = append(out, f.String())
		}
	}
	return out
}

// TestShutdownIsJudgedByK5: on the real node shutdown manager the script
// is clean (b is rejected by the real Admit; a's kill sets Failed); a
// kill whose status function keeps the phase, and an admission that lets
// b in, are each an unexplained K5 finding; with the component off there
// is no shutdown to judge.
func TestShutdownIsJudgedByK5(t *testing.T) {
	if r := runActorsScript(t, shutdownScript, RunOptions{}); len(r.Findings) > 0 {
		t.Fatalf("clean shutdown run has findings: %v", r.Findings)
	}
	for _, c := range []struct {
		plant plantedBug
		want  string
	}{
		{plantShutdownKeepsPhase, "status function that turns phase"},
		{plantAdmitInShutdown, "SyncPod began for pod b"},
	} {
		r := runActorsScript(t, shutdownScript, RunOptions{plant: c.plant})
		got := kFindings(r, "K5")
		if len(got) != 1 || !strings.Contains(got[0], c.want) || !strings.Contains(got[0], "UNEXPLAINED") {
			t.Errorf("plant %d: K5 findings %q, want one unexplained %q", c.plant, got, c.want)
		}
	}
	if r := runActorsScript(t, shutdownScript, RunOptions{Real: components.Only(components.Status, components.Eviction), plant: plantShutdownKeepsPhase}); len(kFindings(r, "K5")) > 0 {
		t.Fatalf("shutdown off still judged a shutdown: %v", r.Findings)
	}
}

// TestShutdownKillsAreRealAndOrdered: the real manager kills by group
// (the low group first, the high one after the low group's grace) with
// grace min(group, spec), evict=false, through killPodNow: the recorded
// kills carry the real overrides.
func TestShutdownKillsAreRealAndOrdered(t *testing.T) {
	const script = `create a spec-grace=1
create b prio=1000
release a ok
release b ok
shutdown groups=0:5,1000:3
deliver a
`
	r := runActorsScript(t, script, RunOptions{})
	trace := strings.Join(r.Trace, "\n")
	ia := strings.Index(trace, "UpdatePod a kill v1 override=1")
	ib := strings.Index(trace, "UpdatePod b kill v1 override=3")
	if ia < 0 || ib < 0 || ib < ia {
		t.Fatalf("want a's kill (override 1) before b's (override 3):\n%s", trace)
	}
	if !strings.Contains(trace, "ShutdownBegins[a b]") || !strings.Contains(trace, "ShutdownDone") {
		t.Fatalf("shutdown notes missing:\n%s", trace)
	}
}

// TestEvictionIsReal: under the real eviction manager an Evict of a pod
// kills the pod the manager ranks first (here the plan's, the only
// non-critical one) with evict=true and grace 1 (hard threshold), and a
// critical pod is never evicted.
func TestEvictionIsReal(t *testing.T) {
	const script = `create a
create b prio=2000000000
release a ok
release b ok
evict b
deliver a
`
	r := runActorsScript(t, script, RunOptions{})
	trace := strings.Join(r.Trace, "\n")
	if !strings.Contains(trace, "UpdatePod a kill v1 evict override=1") || strings.Contains(trace, "UpdatePod b kill") {
		t.Fatalf("want the eviction of a (evict, grace 1), never of critical b:\n%s", trace)
	}
	off := runActorsScript(t, script, RunOptions{Real: components.Only(components.Status, components.Shutdown)})
	if trace := strings.Join(off.Trace, "\n"); !strings.Contains(trace, "UpdatePod b kill v1 evict") {
		t.Fatalf("with eviction off, Evict is a bare killPodNow(evict) of b:\n%s", trace)
	}
}
