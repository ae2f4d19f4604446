package scenarios

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/podsim/podsim/sim"
)

// reaperNode is the API server of recreate-same-name: unique names and the
// grace reaper.
func reaperNode() *Node {
	return &Node{APIServer: true, UniqueNames: true, ForceDeleteAfterGrace: true}
}

// v2Plan is BUGS.md V2's scenario: pod web (uid a) deleted with grace 10
// at 1 s stops at once and leaves the API; web is created again (uid b) at
// 6 s, within a's grace; a's forced delete is due at 1+10+1 = 12 s.
func v2Plan() Plan {
	web := Action{Name: "web"}
	return Plan{Family: "script", Clients: 1, Node: reaperNode(), Actions: []Action{
		act(0, Create, "a", web), act(time.Second, Delete, "a", Action{Grace: 10}),
		act(6*time.Second, Create, "b", web), act(20*time.Second, Query, "b", Action{})}}
}

// TestK6CatchesV2: the V2 mutant on V2's scenario force-deletes the new
// object b at a's deadline; K6 reports it, naming the pod and both UIDs.
// The correct world passes the same plan and leaves b in the API.
func TestK6CatchesV2(t *testing.T) {
	w, r := runScripted(t, v2Plan())
	if a, b := w.pods["a"], w.pods["b"]; a.inAPI || !b.inAPI || !b.inConfig {
		t.Errorf("correct world: got a inAPI=%v, b inAPI=%v inConfig=%v; want a gone, b in the API and in config",
			a.inAPI, b.inAPI, b.inConfig)
	}
	if !slices.Contains(r.Marks, MarkRecreatedInGrace) || slices.Contains(r.Marks, MarkGraceReaped) {
		t.Errorf("correct world: got marks %v, want %s and no %s", r.Marks, MarkRecreatedInGrace, MarkGraceReaped)
	}

	w = NewWorld(v2Plan(), sim.NewReplay(nil), sim.NewReplay(nil), sim.RandomWalk{})
	if err := w.reintroduce("V2"); err != nil {
		t.Fatal(err)
	}
	r = judge(Family{Name: "script"}, 0, w, CheckOptions{Mutant: "V2"})
	var k6 []string
	for _, v := range r.Violations {
		if v.Oracle == "kubelet" && v.Invariant == "K6" {
			k6 = append(k6, v.String())
		}
	}
	if len(k6) == 0 {
		t.Fatalf("V2 on its own scenario: no K6 violation; got %v", r.Violations)
	}
	for _, want := range []string{"K6", "pod web", "uid b", "uid a", "at 12s"} {
		if !strings.Contains(k6[0], want) {
			t.Errorf("K6 message %q does not name %q", k6[0], want)
		}
	}
}

// TestGraceReaperForceDeletesAfterGrace: an object whose termination keeps
// failing outlives its grace; the reaper removes it from the API once the
// grace expired (not before), the watch echo sends the kill, and no K6 or
// L7 fires.
func TestGraceReaperForceDeletesAfterGrace(t *testing.T) {
	plan := Plan{Family: "script", Clients: 1, Node: reaperNode(), Faults: Faults{ErrorRate: 1000}, Actions: []Action{
		act(0, Create, "a", Action{}), act(time.Second, Delete, "a", Action{Grace: 5}),
		act(6500*time.Millisecond, Query, "a", Action{}), act(10*time.Second, Query, "a", Action{})}}
	w := NewWorld(plan, sim.NewReplay(nil), sim.NewReplay(nil), sim.RandomWalk{})
	var inAPIAt6s5 bool
	w.S.Go("probe", func() {
		w.S.Sleep(6500 * time.Millisecond)
		inAPIAt6s5 = w.pods["a"].inAPI
	})
	r := judge(Family{Name: "script"}, 0, w, CheckOptions{})
	if r.Failed() {
		t.Fatalf("%v\n%s", r, storyOf(plan, r))
	}
	if !inAPIAt6s5 || w.pods["a"].inAPI || w.pods["a"].inConfig {
		t.Errorf("got inAPI at 6.5s=%v, at the end inAPI=%v inConfig=%v; want reaped at 7s and removed from config",
			inAPIAt6s5, w.pods["a"].inAPI, w.pods["a"].inConfig)
	}
	if !slices.Contains(r.Marks, MarkGraceReaped) {
		t.Errorf("got marks %v, want %s", r.Marks, MarkGraceReaped)
	}
}

// TestUniqueNames: a create whose name another object holds is refused
// (the pod never reaches config or the pod workers), so is a delete of an
// object not in the API; once the holder left the API the name is free.
func TestUniqueNames(t *testing.T) {
	web := Action{Name: "web"}
	plan := Plan{Family: "script", Clients: 1, Node: reaperNode(), Actions: []Action{
		act(0, Create, "a", web), act(time.Second, Create, "b", web), act(time.Second, Delete, "b", Action{Grace: 0}),
		act(2*time.Second, Delete, "a", Action{Grace: 0}), act(10*time.Second, Create, "c", web)}}
	w, r := runScripted(t, plan)
	if _, ok := w.pods["b"]; ok {
		t.Errorf("refused pod b has a config entry: %+v", w.pods["b"])
	}
	if c := w.pods["c"]; c == nil || !c.inAPI || !c.admitted {
		t.Errorf("pod c, created once a left the API: got %+v, want in the API and admitted", c)
	}
	if !slices.Contains(r.Marks, MarkNameTaken) {
		t.Errorf("got marks %v, want %s", r.Marks, MarkNameTaken)
	}
}

// TestIdentityCheckCatches plants K6 violations on a world not run: a
// removal with no delete request, a removal of a newer object of the UID,
// and a forced delete before the grace expired; their twins pass.
func TestIdentityCheckCatches(t *testing.T) {
	for _, tc := range []struct {
		name  string
		plant func(w *World, c *identityCheck, bad bool)
	}{
		{"removed without a delete", func(w *World, c *identityCheck, bad bool) {
			if !bad {
				c.deleteRequested(w, "a", 0)
			}
			c.removed(w, "a", "status manager", false)
		}},
		{"removed a newer object of the UID", func(w *World, c *identityCheck, bad bool) {
			c.deleteRequested(w, "a", 0)
			if bad {
				w.pods["a"].created++
			}
			c.removed(w, "a", "status manager", false)
		}},
		{"forced before the grace expired", func(w *World, c *identityCheck, bad bool) {
			g := int64(0)
			if bad {
				g = 30
			}
			c.deleteRequested(w, "a", g)
			c.removed(w, "a", "grace reaper", true)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, bad := range []bool{false, true} {
				w := checkWorld()
				tc.plant(w, &w.identity, bad)
				var got []string
				for _, v := range w.Violations {
					got = append(got, v.Invariant+": "+v.Message)
				}
				switch {
				case bad && (len(got) != 1 || !strings.HasPrefix(got[0], "K6:") || !strings.Contains(got[0], "pod-a (uid a)")):
					t.Errorf("planted: got %q, want one K6 violation naming pod-a (uid a)", got)
				case !bad && len(got) > 0:
					t.Errorf("correct state: got %q, want none", got)
				}
			}
		})
	}
}

// TestActionStringNamesAPIPods: a non-static pod's name is part of its
// story line, as a static pod's is.
func TestActionStringNamesAPIPods(t *testing.T) {
	for _, tc := range []struct {
		a    Action
		want string
	}{
		{act(0, Create, "b", Action{Name: "web"}), "0s client/0 create uid=b name=web"},
		{act(0, Create, "b", Action{Name: "web", Static: true}), "0s client/0 create uid=b static name=web"},
		{act(0, Create, "b", Action{}), "0s client/0 create uid=b"},
	} {
		if got := tc.a.String(); got != tc.want {
			t.Errorf("got %q, want %q", got, tc.want)
		}
	}
}
