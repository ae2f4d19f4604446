package run

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/sim"
	"github.com/podsim/podsim/world"
)

// reaperNode is the API server of recreate-same-name: unique names and the
// grace reaper.
func reaperNode() *plan.Node {
	return &plan.Node{APIServer: true, UniqueNames: true, ForceDeleteAfterGrace: true}
}

// v2Plan is docs/bugs.md V2's scenario: pod web (uid a) deleted with grace 10
// at 1 s stops at once and leaves the API; web is created again (uid b) at
// 6 s, within a's grace; a's forced delete is due at 1+10+1 = 12 s.
func v2Plan() plan.Plan {
	web := plan.Action{Name: "web"}
	return plan.Plan{Family: "script", Clients: 1, Node: reaperNode(), Actions: []plan.Action{
		act(0, plan.Create, "a", web), act(time.Second, plan.Delete, "a", plan.Action{Grace: 10}),
		act(6*time.Second, plan.Create, "b", web), act(20*time.Second, plan.Query, "b", plan.Action{})}}
}

// TestK6CatchesV2: the V2 mutant on V2's scenario force-deletes the new
// object b at a's deadline; K6 reports it, naming the pod and both UIDs.
// The correct world passes the same plan and leaves b in the API.
func TestK6CatchesV2(t *testing.T) {
	w, r := runScripted(t, v2Plan())
	if a, b := w.View().Kubelet().Pod("a"), w.View().Kubelet().Pod("b"); a.InAPI || !b.InAPI || !b.InConfig {
		t.Errorf("correct world: got a inAPI=%v, b inAPI=%v inConfig=%v; want a gone, b in the API and in config",
			a.InAPI, b.InAPI, b.InConfig)
	}
	if !slices.Contains(r.Marks, plan.MarkRecreatedInGrace) || slices.Contains(r.Marks, plan.MarkGraceReaped) {
		t.Errorf("correct world: got marks %v, want %s and no %s", r.Marks, plan.MarkRecreatedInGrace, plan.MarkGraceReaped)
	}

	w = world.NewWorld(v2Plan(), sim.NewReplay(nil), sim.NewReplay(nil), sim.RandomWalk{})
	if err := w.Reintroduce("V2"); err != nil {
		t.Fatal(err)
	}
	r = judge(plan.Family{Name: "script"}, 0, w, CheckOptions{Mutant: "V2"}, nil)
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
	pl := plan.Plan{Family: "script", Clients: 1, Node: reaperNode(), Faults: plan.Faults{ErrorRate: 1000}, Actions: []plan.Action{
		act(0, plan.Create, "a", plan.Action{}), act(time.Second, plan.Delete, "a", plan.Action{Grace: 5}),
		act(6500*time.Millisecond, plan.Query, "a", plan.Action{}), act(10*time.Second, plan.Query, "a", plan.Action{})}}
	w := world.NewWorld(pl, sim.NewReplay(nil), sim.NewReplay(nil), sim.RandomWalk{})
	var inAPIAt6s5 bool
	w.S.Go("probe", func() {
		w.S.Sleep(6500 * time.Millisecond)
		inAPIAt6s5 = w.View().Kubelet().Pod("a").InAPI
	})
	r := judge(plan.Family{Name: "script"}, 0, w, CheckOptions{}, nil)
	if r.Failed() {
		t.Fatalf("%v\n%s", r, storyOf(pl, r))
	}
	if !inAPIAt6s5 || w.View().Kubelet().Pod("a").InAPI || w.View().Kubelet().Pod("a").InConfig {
		t.Errorf("got inAPI at 6.5s=%v, at the end inAPI=%v inConfig=%v; want reaped at 7s and removed from config",
			inAPIAt6s5, w.View().Kubelet().Pod("a").InAPI, w.View().Kubelet().Pod("a").InConfig)
	}
	if !slices.Contains(r.Marks, plan.MarkGraceReaped) {
		t.Errorf("got marks %v, want %s", r.Marks, plan.MarkGraceReaped)
	}
}

// TestUniqueNames: a create whose name another object holds is refused
// (the pod never reaches config or the pod workers), so is a delete of an
// object not in the API; once the holder left the API the name is free.
func TestUniqueNames(t *testing.T) {
	web := plan.Action{Name: "web"}
	pl := plan.Plan{Family: "script", Clients: 1, Node: reaperNode(), Actions: []plan.Action{
		act(0, plan.Create, "a", web), act(time.Second, plan.Create, "b", web), act(time.Second, plan.Delete, "b", plan.Action{Grace: 0}),
		act(2*time.Second, plan.Delete, "a", plan.Action{Grace: 0}), act(10*time.Second, plan.Create, "c", web)}}
	w, r := runScripted(t, pl)
	if b := w.View().Kubelet().Pod("b"); b.Incarnation != 0 || b.InConfig {
		t.Errorf("refused pod b has a config entry: %+v", b)
	}
	if c := w.View().Kubelet().Pod("c"); !c.InAPI || !c.Admitted {
		t.Errorf("pod c, created once a left the API: got %+v, want in the API and admitted", c)
	}
	if !slices.Contains(r.Marks, plan.MarkNameTaken) {
		t.Errorf("got marks %v, want %s", r.Marks, plan.MarkNameTaken)
	}
}

// TestActionStringNamesAPIPods: a non-static pod's name is part of its
// story line, as a static pod's is.
func TestActionStringNamesAPIPods(t *testing.T) {
	for _, tc := range []struct {
		a    plan.Action
		want string
	}{
		{act(0, plan.Create, "b", plan.Action{Name: "web"}), "0s client/0 create uid=b name=web"},
		{act(0, plan.Create, "b", plan.Action{Name: "web", Static: true}), "0s client/0 create uid=b static name=web"},
		{act(0, plan.Create, "b", plan.Action{}), "0s client/0 create uid=b"},
	} {
		if got := tc.a.String(); got != tc.want {
			t.Errorf("got %q, want %q", got, tc.want)
		}
	}
}
