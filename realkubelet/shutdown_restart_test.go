package realkubelet

import (
	"slices"
	"strings"
	"testing"

	"github.com/podsim/podsim/plan"
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

// TestRestartThatLearnsTheShutdown: a restarted kubelet told of the node
// shutdown at its start (the fixed kubelet's behaviour, on the pin) rejects
// what it adds again and what is created later: GK's shape shows no K5.
// And a pod deleted before the restart, which that kubelet rejects at its
// re-add, still leaves the API: the rejection's Failed status goes to the
// new pod manager, which HandlePodAdditions fills before admission, and
// housekeeping finishes the terminal deleted pod (swarm-restart seed 51,
// shrunk: an unexplained L7 while the driver re-added only admitted pods
// to the pod manager, which the gate of a fixed tree reported as its
// regression).
func TestRestartThatLearnsTheShutdown(t *testing.T) {
	o := RunOptions{restartLearns: true}
	if got := kFindings(runActorsScript(t, gkScript, o), "K5"); len(got) > 0 {
		t.Errorf("GK's shape, the restarted kubelet told: K5 findings %q", got)
	}
	const deleted = "create b name=web prio=2000000000\ndelete b name=web grace=10\nrelease b canceled\nrelease b ok\n" +
		"shutdown name=web groups=0:2,1000:2\nrestart name=web\n"
	r := runActorsScript(t, deleted, o)
	if u := r.Unexplained(); len(u) > 0 {
		t.Errorf("a deleted pod rejected at the re-add: unexplained %v", u)
	}
	if got := kFindings(r, "L7"); len(got) > 0 {
		t.Errorf("a deleted pod rejected at the re-add stays in the API: %q", got)
	}
	f, _ := plan.FamilyNamed("shutdown-restart")
	for _, hold := range []bool{false, true} {
		for seed := uint64(1); seed <= restartShutdownSeeds; seed++ {
			o := RunOptions{HoldWakes: hold, restartLearns: true}
			if r := Bubble(t, func() Result { return RunSeedWith(f, seed, o) }); len(r.Findings) > 0 {
				t.Errorf("shutdown-restart seed %d hold %v, the restarted kubelet told: findings %v", seed, hold, r.Findings)
			}
		}
	}
}

// TestLingeringLock: when the run ends with logind shutting the node
// down, a manager still holding an inhibit lock with no processing left
// makes logind wait its whole delay: P7. In GK's shape it is the
// restarted manager's start lock, never told of the shutdown: GK. A
// manager that was told
// that processed the shutdown and kept its lock (planted LockKept) is
// unexplained; the restarted kubelet told of the shutdown processes it and
// lets its lock go.
func TestLingeringLock(t *testing.T) {
	const lingering = "the node shutdown manager holds an inhibit lock with logind shutting the node down"
	held := func(r Result) []string {
		var out []string
		for _, f := range findingsOf(r, "conform", "P7") {
			if strings.Contains(f, lingering) {
				out = append(out, f)
			}
		}
		return out
	}
	if got := held(runActorsScript(t, gkScript, RunOptions{})); len(got) != 1 || !strings.HasPrefix(got[0], "[GK]") {
		t.Errorf("GK's shape: lingering-lock findings %q, want one GK", got)
	}
	if got := held(runActorsScript(t, gkScript, RunOptions{restartLearns: true})); len(got) > 0 {
		t.Errorf("the restarted kubelet told: lingering-lock findings %q", got)
	}
	got := held(runActorsScript(t, "create a\nrelease a ok\nshutdown groups=0:2\n", RunOptions{plant: planted.LockKept}))
	if len(got) != 1 || !strings.Contains(got[0], "UNEXPLAINED") {
		t.Errorf("a told manager that kept its lock: lingering-lock findings %q, want one unexplained", got)
	}
}

// TestRestartListsAfresh: the restarted kubelet's config source lists the
// API, so a pod the shutdown killed (Failed in the API, its echo not yet
// delivered when the kubelet restarted) is re-added Failed and never
// written Running again (shutdown-restart seed 5: before the restart
// applied the echoes due, the re-add used the stale view and resurrected
// pod a).
func TestRestartListsAfresh(t *testing.T) {
	f, _ := plan.FamilyNamed("shutdown-restart")
	r := Bubble(t, func() Result { return RunSeedWith(f, 5, RunOptions{}) })
	restarted := slices.IndexFunc(r.Trace, func(l string) bool { return strings.Contains(l, "restarted kubelet") })
	if restarted < 0 {
		t.Fatal("seed 5 no longer restarts the kubelet")
	}
	if !slices.ContainsFunc(r.Trace[:restarted], func(l string) bool { return strings.HasSuffix(l, "PhaseWritten{UID:a Phase:Failed}") }) {
		t.Fatal("seed 5 no longer writes pod a Failed before the restart")
	}
	if slices.ContainsFunc(r.Trace[restarted:], func(l string) bool { return strings.HasSuffix(l, "PhaseWritten{UID:a Phase:Running}") }) {
		t.Fatal("pod a, Failed in the API, was written Running after the restart")
	}
}
