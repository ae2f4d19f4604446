package realkubelet

import (
	"slices"
	"strings"
	"testing"

	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/realkubelet/planted"
)

// TestShutdownKillsAreJudged: the node shutdown's kills are judged on the
// real kubelet (actors.KillProblems, package sdjudge; P7): a manager
// whose kills carry a grace longer than min(group, spec) is caught, and
// one whose groups end after their kills returned (planted KillLingers:
// each kill returns to it a second late) too; node-shutdown is clean
// without them (TestFamiliesOnRealKubelet).
func TestShutdownKillsAreJudged(t *testing.T) {
	f, _ := plan.FamilyNamed("node-shutdown")
	for _, c := range []struct {
		bug  planted.Bug
		want string
	}{
		{planted.GraceStretched, "without evict"},
		{planted.KillLingers, "its kills all returned"},
	} {
		caught := 0
		for seed := uint64(1); seed <= 10; seed++ {
			r := Bubble(t, func() Result { return RunSeedWith(f, seed, RunOptions{plant: c.bug}) })
			for _, u := range unexplainedP7(r) {
				if strings.Contains(u, c.want) {
					caught++
					break
				}
			}
		}
		if caught == 0 {
			t.Errorf("planted bug %d: no unexplained P7 %q in 10 seeds", c.bug, c.want)
		}
		t.Logf("planted bug %d: caught in %d of 10 seeds", c.bug, caught)
	}
	r := runActorsScript(t, "create a spec-grace=1\nrelease a ok\ncreate b prio=1000\nrelease b ok\nshutdown groups=0:5,1000:2\n", RunOptions{})
	if u := r.Unexplained(); len(u) > 0 {
		t.Fatalf("two groups, each killed in turn: unexplained %v", u)
	}
	kills := 0
	for _, l := range r.Trace {
		if strings.Contains(l, "noted kubelet ShutdownKill") {
			kills++
		}
	}
	if kills != 2 {
		t.Fatalf("the clean script noted %d shutdown kills, want 2 (one a group)", kills)
	}
}

// TestShutdownGroupsFamily: shutdown-groups' first seeds in both modes on
// the real manager are clean and the same twice, and most of them kill a
// pod whose priority is no group's (below the lowest, between two, above
// the highest), which only the manager's grouping places.
func TestShutdownGroupsFamily(t *testing.T) {
	const seeds = 30
	offGroup := 0
	cleanSeeds(t, "shutdown-groups", seeds, func(r Result) {
		groups, prio := map[int32]bool{}, map[string]int32{}
		for _, m := range r.Moves {
			switch m.Action.Kind {
			case plan.Shutdown:
				for _, g := range m.Groups {
					groups[g.Priority] = true
				}
			case plan.Create:
				prio[string(m.Action.UID)] = m.Action.Priority
			}
		}
		for uid, p := range prio {
			if !groups[p] && slices.ContainsFunc(r.Trace, func(l string) bool { return strings.HasSuffix(l, "noted kubelet ShutdownKill "+uid) }) {
				offGroup++
				return
			}
		}
	})
	if offGroup < seeds {
		t.Fatalf("%d of %d runs killed a pod off the groups' priorities, want most", offGroup, 2*seeds)
	}
}
