package realkubelet

import (
	"slices"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/podsim/podsim/realkubelet/components"
	"github.com/podsim/podsim/realkubelet/planted"
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

func kFindings(r Result, inv string) []string { return findingsOf(r, "kubelet", inv) }

// findingsOf are r's findings of oracle's invariant inv, as strings.
func findingsOf(r Result, oracle, inv string) []string {
	var out []string
	for _, f := range r.Findings {
		if f.Oracle == oracle && f.Invariant == inv {
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
		plant planted.Bug
		want  string
	}{
		{planted.ShutdownKeepsPhase, "status function that turns phase"},
		{planted.AdmitInShutdown, "SyncPod began for pod b"},
	} {
		r := runActorsScript(t, shutdownScript, RunOptions{plant: c.plant})
		got := kFindings(r, "K5")
		if len(got) != 1 || !strings.Contains(got[0], c.want) || !strings.Contains(got[0], "UNEXPLAINED") {
			t.Errorf("plant %d: K5 findings %q, want one unexplained %q", c.plant, got, c.want)
		}
	}
	if r := runActorsScript(t, shutdownScript, RunOptions{Real: components.Only(components.Status, components.Eviction), plant: planted.ShutdownKeepsPhase}); len(kFindings(r, "K5")) > 0 {
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

// evictScript: a runs, b (system-critical priority) runs; an Evict names b
// as the pod using the most memory, and the manager's kill is delivered.
const evictScript = `create a
create b prio=2000000000
release a ok
release b ok
evict b
deliver a
`

// TestEvictionIsReal: under the real eviction manager an Evict of a pod
// kills the pod the manager ranks first (here the plan's, the only
// non-critical one) with evict=true and grace 1 (hard threshold), and a
// critical pod is never evicted.
func TestEvictionIsReal(t *testing.T) {
	script := evictScript
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

// bareRemoveScript is swarm seed 859 shrunk (36 → 3 moves): a remove of a
// pod that was never in config is the scripts' bare UpdatePod(kill); it
// leaves a record of a with termination requested, which upstream's
// kubelet could not have (its config merge removes only pods it holds).
const bareRemoveScript = `shutdown spec-grace=5
remove a static=web spec-grace=1
create a static=web spec-grace=1 prio=2000000000
`

// TestBareRemoveLeavesAdmissionReal: the create after a bare remove goes
// through the real Admit (rejected: the node shuts down), so a never
// starts and K5 holds; the script's only finding is the bare kill's G3.
// With the driver as it was (planted.BareKillIsKubelets: the bare kill's
// record taken for the kubelet's, admission skipped), housekeeping starts
// a during the shutdown: one unexplained K5, as swarm seed 859 showed.
func TestBareRemoveLeavesAdmissionReal(t *testing.T) {
	r := runActorsScript(t, bareRemoveScript, RunOptions{})
	trace := strings.Join(r.Trace, "\n")
	if strings.Contains(trace, "UpdatePod a create") || strings.Contains(trace, "SyncPod begin") {
		t.Fatalf("the create of a after a bare remove was not rejected:\n%s", trace)
	}
	if got := r.Classes(); len(r.Unexplained()) > 0 || !slices.Equal(got, []string{"G3"}) {
		t.Fatalf("want only G3, got classes %v, findings %v", got, r.Findings)
	}
	planted := runActorsScript(t, bareRemoveScript, RunOptions{plant: planted.BareKillIsKubelets})
	got := kFindings(planted, "K5")
	if len(got) != 1 || !strings.Contains(got[0], "SyncPod began for pod a") || !strings.Contains(got[0], "UNEXPLAINED") {
		t.Fatalf("planted: K5 findings %q, want one unexplained SyncPod of a", got)
	}
}

// TestRealRequestStillSkipsAdmission: a kill the kubelet does send (the
// remove of a pod in config) makes the termination request real, and a
// re-add of the UID during the shutdown skips admission as upstream's
// HandlePodAdditions does: the create reaches the workers (a restart
// request), although the shutdown manager would reject a new pod.
func TestRealRequestStillSkipsAdmission(t *testing.T) {
	const script = `create a static=web
release a ok
shutdown groups=0:2
remove a static=web
create a static=web
`
	r := runActorsScript(t, script, RunOptions{})
	if trace := strings.Join(r.Trace, "\n"); !strings.Contains(trace, "UpdatePod a create v2") {
		t.Fatalf("the re-add of a terminating UID did not skip admission:\n%s", trace)
	}
	for _, f := range r.Unexplained() {
		t.Errorf("unexplained: %s", f)
	}
}

// TestUnfinishedShutdownIsLiveness: a node shutdown whose processing never
// runs (its event lost: the manager never kills, never ends) is an
// unexplained L3 after the settle phase, which waits its bound for it; the
// same script with the event sent has no L3 (the manager ends within its
// group's grace).
func TestUnfinishedShutdownIsLiveness(t *testing.T) {
	l3 := func(r Result) []string { return findingsOf(r, "liveness", "L3") }
	if got := l3(runActorsScript(t, shutdownScript, RunOptions{})); len(got) > 0 {
		t.Fatalf("a shutdown that ends: L3 %q", got)
	}
	got := l3(runActorsScript(t, shutdownScript, RunOptions{plant: planted.ShutdownNeverTriggered}))
	if len(got) != 1 || !strings.Contains(got[0], "the node shutdown begun at 300ms never ended") || !strings.Contains(got[0], "UNEXPLAINED") {
		t.Fatalf("a shutdown that never ends: L3 %q, want one unexplained about the shutdown", got)
	}
}

// TestEvictionTurnsAreJudged (P6 on the real manager): in TestEvictionIsReal's
// script the turn evicts a, the one pod that is not critical, and nothing is
// found; a manager handed no pods evicts nobody although a was active and
// not critical, one handed the pods without their priorities evicts
// critical b, and an eviction whose kill leaves the phase alone does not
// mark a Failed: each an unexplained P6.
func TestEvictionTurnsAreJudged(t *testing.T) {
	script := evictScript
	p6 := func(r Result) []string { return findingsOf(r, "conform", "P6") }
	if got := p6(runActorsScript(t, script, RunOptions{})); len(got) > 0 {
		t.Fatalf("the real turn: P6 %q", got)
	}
	for _, c := range []struct {
		plant planted.Bug
		want  string
	}{
		{planted.EvictSeesNoPods, "eviction turn 1 evicted [], want one of the active pods that are not critical: [a]"},
		{planted.EvictSeesNoPriority, "eviction turn 1 evicted [b]: a critical pod"},
		{planted.EvictKeepsPhase, "the eviction of pod a has a status function that turns phase Pending into \"Pending\", reason \"Evicted\""},
		{planted.EvictGraceStretched, "the eviction of pod a was sent with grace 2 and evict true, want grace 1"},
	} {
		got := p6(runActorsScript(t, script, RunOptions{plant: c.plant}))
		if len(got) != 1 || !strings.Contains(got[0], c.want) || !strings.Contains(got[0], "UNEXPLAINED") {
			t.Errorf("plant %d: P6 %q, want one unexplained %q", c.plant, got, c.want)
		}
	}
}

// TestEvictionRankIsJudged: with a (priority 0) and c (priority 1000,
// using the most memory) the real turn evicts a, lowest in priority, and
// nothing is found; a manager handed the pods without their priorities
// ranks by memory alone and evicts c: an unexplained P6 naming a as the
// pod the ranking puts first.
func TestEvictionRankIsJudged(t *testing.T) {
	const script = "create a\ncreate c prio=1000\nrelease a ok\nrelease c ok\nevict c\ndeliver a\ndeliver c\n"
	p6 := func(r Result) []string { return findingsOf(r, "conform", "P6") }
	if got := p6(runActorsScript(t, script, RunOptions{})); len(got) > 0 {
		t.Fatalf("the real turn: P6 %q", got)
	}
	got := p6(runActorsScript(t, script, RunOptions{plant: planted.EvictSeesNoPriority}))
	want := "eviction turn 1 evicted c, want one ranked first under memory pressure (the lowest priority, then the most memory): [a]"
	if len(got) != 1 || !strings.Contains(got[0], want) || !strings.Contains(got[0], "UNEXPLAINED") {
		t.Fatalf("a manager blind to priority: P6 %q, want one unexplained naming [a]", got)
	}
}

// TestDisruptionTargetIsJudged (K8's first half): the real eviction and
// node shutdown managers' kills set DisruptionTarget, so their scripts
// have no K8; kills whose status function drops it are each an
// unexplained K8 naming the kill, and nothing else moves to K8.
func TestDisruptionTargetIsJudged(t *testing.T) {
	for _, c := range []struct{ script, want string }{
		{evictScript, "the eviction kill of pod a has a status function that sets no DisruptionTarget"},
		{shutdownScript, "the shutdown kill of pod a has a status function that sets no DisruptionTarget"},
	} {
		if got := findingsOf(runActorsScript(t, c.script, RunOptions{}), "kubelet", "K8"); len(got) > 0 {
			t.Fatalf("the real managers: K8 %q", got)
		}
		got := findingsOf(runActorsScript(t, c.script, RunOptions{plant: planted.NoDisruption}), "kubelet", "K8")
		if len(got) != 1 || !strings.Contains(got[0], c.want) || !strings.Contains(got[0], "UNEXPLAINED") {
			t.Errorf("planted: K8 %q, want one unexplained %q", got, c.want)
		}
	}
}
