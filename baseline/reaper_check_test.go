package baseline

import (
	"strings"
	"testing"
	"time"

	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/world"
	"k8s.io/apimachinery/pkg/types"
)

// Unit tests of the baseline's names, grace reaper and K6 check: planted
// states, no real-time runs (mutants_baseline_kubelet_oracle_test.go says
// why).

// reaperWorld is baseKubeWorld on a node with unique names and the grace
// reaper, and pod a renamed "web".
func reaperWorld(t *testing.T, mutant string) *baseWorld {
	t.Helper()
	w := baseKubeWorld(t, mutant)
	w.kube.node = &plan.Node{CPU: 4, APIServer: true, UniqueNames: true, ForceDeleteAfterGrace: true}
	w.pods["a"].action.Name = "web"
	return w
}

// TestBaselineK6Catches plants K6's two violations next to their correct
// twins: an object removed from the API with no delete requested for it
// (or only for an earlier object under its UID), and a forced delete
// before the object's grace expired.
func TestBaselineK6Catches(t *testing.T) {
	for _, tc := range []struct {
		name  string
		plant func(w *baseWorld, bad bool)
	}{
		{"removed without a delete", func(w *baseWorld, bad bool) {
			if !bad {
				w.apiDeleted(w.pods["c"], 30)
			}
			w.checkRemoved(w.pods["c"], "status manager", false)
		}},
		{"removed after a delete of an earlier object", func(w *baseWorld, bad bool) {
			w.apiDeleted(w.pods["c"], 0)
			if bad {
				w.pods["c"].object++ // a new object under the same UID
			}
			w.checkRemoved(w.pods["c"], "status manager", false)
		}},
		{"forced before the grace expired", func(w *baseWorld, bad bool) {
			grace := int64(0)
			if bad {
				grace = 3600
			}
			w.apiDeleted(w.pods["c"], grace)
			w.checkRemoved(w.pods["c"], "grace reaper", true)
		}},
	} {
		for _, bad := range []bool{false, true} {
			w := baseKubeWorld(t, "") // no reaper: apiDeleted only records
			w.mu.Lock()
			tc.plant(w, bad)
			w.mu.Unlock()
			got := w.checks.first()
			switch {
			case bad && !strings.HasPrefix(got, "K6:"):
				t.Errorf("%s: got %q, want a K6 failure", tc.name, got)
			case !bad && got != "":
				t.Errorf("%s, correct twin: reported %s", tc.name, got)
			}
		}
	}
}

// TestBaselineReaperV2 is docs/bugs.md V2's scenario on the baseline's reaper:
// web (uid a) is deleted with grace 0 and leaves the API, then web (uid c)
// is created. The reaper's actor wakes after the grace; everything before
// it happens in one critical section, so the outcome does not depend on
// timing. The correct reaper forgot a's key and leaves c alone; V2's,
// keyed by the name, force-deletes c, and K6 reports it.
func TestBaselineReaperV2(t *testing.T) {
	for _, mutant := range []string{"", "V2"} {
		w := reaperWorld(t, mutant)
		a, c := w.pods["a"], w.pods["c"]
		w.mu.Lock()
		w.apiDeleted(a, 0)
		a.inAPI = false
		w.leftAPI(a)
		c.action.Name = "web"
		w.mu.Unlock()
		w.actors.Wait()
		got := w.checks.first()
		switch {
		case mutant == "" && (got != "" || !c.inAPI):
			t.Errorf("correct reaper: failure %q, c in the API %v; want none and true", got, c.inAPI)
		case mutant == "V2" && (!strings.HasPrefix(got, "K6:") || c.inAPI):
			t.Errorf("V2 reaper: failure %q, c in the API %v; want K6 and false", got, c.inAPI)
		}
	}
}

// TestBaselineReaperForceDeletesAfterGrace: an object still in the API
// when its grace expired is force-deleted (and its removal echoed to the
// config source), without a K6 failure.
func TestBaselineReaperForceDeletesAfterGrace(t *testing.T) {
	w := reaperWorld(t, "")
	w.mu.Lock()
	w.apiDeleted(w.pods["a"], 1)
	w.mu.Unlock()
	w.actors.Wait()
	if got, a := w.checks.first(), w.pods["a"]; got != "" || a.inAPI || !a.echoDue {
		t.Errorf("failure %q, in the API %v, echo due %v; want none, false, true", got, a.inAPI, a.echoDue)
	}
	if w.clk.Now().Before(w.kube.api.asks["a"].expires.Add(world.ReapSlack - time.Millisecond)) {
		t.Error("reaped before the deadline")
	}
}

// TestBaselineRefusesTakenName: under UniqueNames a create of a name
// another object in the API holds is refused; not once it left the API,
// nor for the holder itself, a static pod, or a node without the rule.
func TestBaselineRefusesTakenName(t *testing.T) {
	w := reaperWorld(t, "")
	web := func(uid types.UID) plan.Action { return plan.Action{UID: uid, Name: "web"} }
	if !w.apiRefusesCreate(web("d")) {
		t.Error("a create of a name in use was accepted")
	}
	if w.apiRefusesCreate(web("a")) || w.apiRefusesCreate(plan.Action{UID: "d", Name: "web", Static: true}) {
		t.Error("the holder's own create, or a static pod's, was refused")
	}
	w.pods["a"].inAPI = false
	if w.apiRefusesCreate(web("d")) {
		t.Error("a create of a free name was refused")
	}
	w.pods["a"].inAPI = true
	w.kube.node.UniqueNames = false
	if w.apiRefusesCreate(web("d")) {
		t.Error("refused without Node.UniqueNames")
	}
}
