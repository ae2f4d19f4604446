package baseline

import (
	"slices"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/oracle"
	"github.com/podsim/podsim/oracle/kubelet"
	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/run"
	"github.com/podsim/podsim/workers"
	"github.com/podsim/podsim/world"
)

// Unit tests of the baseline's kubelet layer: each check is called by hand
// on a planted state, never through a real-time run, so they are fast and
// deterministic (the real runs are TestBaselineSideBySide's, outside make
// test).

// baseKubeWorld is a baseline world with a node (CPU 4) and pods a, b and
// c in config and in the API (a and c admitted, b rejected with its local
// Failed status), not run. mutant is switched on as the baseline does.
func baseKubeWorld(t *testing.T, mutant string) *baseWorld {
	t.Helper()
	pl := plan.Plan{Family: "check", Clients: 1, Node: &plan.Node{CPU: 4, APIServer: true}}
	w, err := newBaseWorld(pl, 0, mutant)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.pw.Shutdown)
	for _, uid := range []types.UID{"a", "b", "c"} {
		w.pods[uid] = &basePod{action: plan.Action{UID: uid, CPU: 2, SpecGrace: 30}, inConfig: true, inAPI: true,
			phase: v1.PodRunning, admitted: uid != "b", rejected: uid == "b", added: true}
	}
	w.kube.statusOf("b").Phase = v1.PodFailed
	return w
}

// activeViews is every pod seen active (running, nothing requested).
func activeViews(w *baseWorld) map[types.UID]kubelet.AdmissionView {
	out := map[types.UID]kubelet.AdmissionView{}
	for uid := range w.pods {
		out[uid] = kubelet.AdmissionView{Answers: oracle.Answers{Known: true, CouldHaveRunning: true}}
	}
	return out
}

// TestBaselineKubeletChecksCatch plants each kind of violation the
// baseline's kubelet checks judge and wants it reported under its
// invariant; its twin, the same call on a correct state, must report
// nothing.
func TestBaselineKubeletChecksCatch(t *testing.T) {
	for _, tc := range []struct {
		name, want string
		plant      func(w *baseWorld, bad bool)
	}{
		{"K1 counts a rejected pod", "K1", func(w *baseWorld, bad bool) {
			counted := []types.UID{"a"}
			if bad {
				counted = append(counted, "b")
			}
			w.checkAdmission("c", counted, activeViews(w), activeViews(w))
		}},
		{"K1 counts a known-terminated pod", "K1", func(w *baseWorld, bad bool) {
			start := activeViews(w)
			start["a"] = kubelet.AdmissionView{Answers: oracle.Answers{Known: true, KnownTerminated: true, TerminationRequested: true}}
			var counted []types.UID
			if bad {
				counted = []types.UID{"a"}
			}
			w.checkAdmission("c", counted, start, start)
		}},
		{"K1 leaves out an active pod", "K1", func(w *baseWorld, bad bool) {
			end := activeViews(w)
			if !bad {
				end["a"] = kubelet.AdmissionView{Terminal: true} // it completed during the admission: either way is right
			}
			w.checkAdmission("c", nil, activeViews(w), end)
		}},
		{"K2 terminal phase while containers could run", "K2", func(w *baseWorld, bad bool) {
			w.checkPhaseWrite("a", v1.PodSucceeded, bad)
			w.checkPhaseWrite("c", v1.PodRunning, true) // a non-terminal phase may be written any time
		}},
		{"K3 API delete before finished", "K3", func(w *baseWorld, bad bool) {
			w.checkAPIDelete("a", false, true, !bad)
			w.checkAPIDelete("c", true, true, false) // should be finished: the delete may go
		}},
		{"K4 SyncPod of a rejected pod", "K4", func(w *baseWorld, bad bool) {
			uid := types.UID("a")
			if bad {
				uid = "b"
			}
			w.checkSyncPodBegins(uid)
		}},
		{"K5 SyncPod of a pod first added during the shutdown", "K5", func(w *baseWorld, bad bool) {
			w.pods["c"].addedInShutdown = bad
			w.checkSyncPodBegins("c")
		}},
		{"K5 shutdown status function keeps the phase", "K5", func(w *baseWorld, bad bool) {
			bugs := world.KubeletBugs{B4ShutdownKeepsPhase: bad}
			w.checkShutdownKill("a", world.ShutdownStatusFn(bugs))
		}},
		{"K5 a pod killed by the shutdown ends non-terminal", "K5", func(w *baseWorld, bad bool) {
			w.pods["a"].killedByShutdown = true
			w.pods["a"].apiPhase = v1.PodFailed
			w.kube.statusOf("a").Phase = v1.PodFailed
			if bad {
				w.pods["a"].apiPhase = v1.PodRunning
			}
			w.checkKubeletEnd()
		}},
		{"L7 a deleted pod stays in the API", "L7", func(w *baseWorld, bad bool) {
			g := int64(0)
			w.pods["b"].deletion = &g
			w.pods["b"].inAPI = bad
			w.checkKubeletEnd()
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, bad := range []bool{false, true} {
				w := baseKubeWorld(t, "")
				w.mu.Lock()
				tc.plant(w, bad)
				w.mu.Unlock()
				got := w.checks.first()
				switch {
				case bad && !strings.HasPrefix(got, tc.want+":"):
					t.Errorf("planted violation: got %q, want a %s failure", got, tc.want)
				case !bad && got != "":
					t.Errorf("correct state reported: %s", got)
				}
			}
		})
	}
}

// TestBaselineKubeletMutantSwitches: a K mutant switches on its KubeletBugs
// field in the baseline's kubelet and nothing else; the correct code has
// none; a plan without a node has no kubelet.
func TestBaselineKubeletMutantSwitches(t *testing.T) {
	for _, tc := range []struct {
		mutant string
		want   world.KubeletBugs
	}{{"", world.KubeletBugs{}}, {"B4", world.KubeletBugs{B4ShutdownKeepsPhase: true}}, {"B5", world.KubeletBugs{B5AdmitCountsRejected: true}},
		{"B10", world.KubeletBugs{B10StatusIgnoresRunning: true}}, {"B13", world.KubeletBugs{B13NoTerminalDeleteFilter: true}},
		{"V2", world.KubeletBugs{V2ReaperKeyedByName: true}}} {
		if got := baseKubeWorld(t, tc.mutant).kube.bugs; got != tc.want {
			t.Errorf("mutant %q: bugs %s, want %s", tc.mutant, got, tc.want)
		}
	}
	w, err := newBaseWorld(plan.Plan{Family: "check", Clients: 1}, 0, "B5")
	if err != nil {
		t.Fatal(err)
	}
	defer w.pw.Shutdown()
	if w.kube != nil {
		t.Error("a plan without a node got a kubelet")
	}
}

// TestBaselineActivePodsB5: admission's active set leaves out a pod
// rejected at admission (its local Failed status) on the correct code,
// and counts it with B5 until the API echoes the Failed phase into config.
func TestBaselineActivePodsB5(t *testing.T) {
	for _, tc := range []struct {
		mutant string
		echoed bool
		want   []types.UID
	}{{"", false, []types.UID{"a"}}, {"B5", false, []types.UID{"a", "b"}}, {"B5", true, []types.UID{"a"}}} {
		w := baseKubeWorld(t, tc.mutant)
		if tc.echoed {
			w.pods["b"].phase = v1.PodFailed
		}
		if got := w.activePods("c"); !slices.Equal(got, tc.want) {
			t.Errorf("mutant %q, echoed %v: active pods %v, want %v", tc.mutant, tc.echoed, got, tc.want)
		}
	}
}

// TestBaselineMutantsList: PODSIM_BASELINE_MUTANTS's empty name is the
// correct code; an unknown name is an error, and so is a virtual-kubelet
// mutant, which the default leaves out: every mutant of the default makes
// a baseline world.
func TestBaselineMutantsList(t *testing.T) {
	got, err := baselineMutants(",B4, B13")
	if err != nil || len(got) != 3 || got[0].Name != "" || len(got[0].Families) != len(plan.Families()) ||
		got[1].Name != "B4" || got[2].Name != "B13" {
		t.Fatalf("baselineMutants(\",B4, B13\") = %v, %v", got, err)
	}
	kubelets := 0
	for _, m := range run.Mutants() {
		if m.Kind != run.KindVK {
			kubelets++
		}
	}
	all, _ := baselineMutants("")
	if len(all) != kubelets+1 || kubelets == len(run.Mutants()) {
		t.Errorf("unset: %d mutants, want the correct code and the kubelet target's %d (of %d)", len(all), kubelets, len(run.Mutants()))
	}
	for _, m := range all {
		w, err := newBaseWorld(plan.Plan{Family: "check", Clients: 1}, 0, m.Name)
		if err != nil {
			t.Errorf("unset: %q is in the default but the baseline cannot run it: %v", m.Name, err)
			continue
		}
		w.pw.Shutdown()
	}
	for _, list := range []string{"B4,nope", "B4,vk/V1"} {
		if _, err := baselineMutants(list); err == nil {
			t.Errorf("%q was accepted", list)
		}
	}
}

// TestBaselineReAddInShutdownRequested: the other side of the rule above.
// The pod workers hold pod a's termination (its kill keeps failing, so it
// stays terminating), and a's delete during the shutdown, out of config,
// reaches them: its grace binds the next SyncTerminatingPod. Treating the
// answer as no, or not asking, drops it.
func TestBaselineReAddInShutdownRequested(t *testing.T) {
	w := baseKubeWorld(t, "")
	w.syncer.faults.ErrorRate = 1000 // every runtime call fails: a never terminates
	w.updatePod(workers.UpdatePodOptions{UpdateType: workers.SyncPodCreate, Pod: w.podOf("a")})
	w.updatePod(workers.UpdatePodOptions{UpdateType: workers.SyncPodKill, Pod: w.podOf("a")})
	if !w.pw.IsPodTerminationRequested("a") {
		t.Fatal("pod a's termination is not requested after its kill")
	}
	w.pods["a"].inConfig = false
	w.kube.shuttingDown = true
	w.kubeDo(plan.Action{Kind: plan.Delete, UID: "a", Grace: 3, SpecGrace: 30})
	w.syncer.mu.Lock()
	g, ok := w.syncer.minGrace["a"]
	w.syncer.mu.Unlock()
	if !ok || g != 3 {
		t.Errorf("the delete of pod a (grace 3) did not reach the pod workers although its termination is requested: grace bound %d, %v", g, ok)
	}
}

// TestBaselineRuntimeKillOnlyOutOfConfig: as the world, the baseline's
// housekeeping kill of a runtime-only pod (a plan's RuntimeKill) reaches
// the pod workers only for a UID no pod in config has; a runtime kill of
// a pod in config (admitted, never sent to the workers here) would start
// a worker record beside it, which no kubelet does.
func TestBaselineRuntimeKillOnlyOutOfConfig(t *testing.T) {
	for _, inConfig := range []bool{true, false} {
		w := baseKubeWorld(t, "")
		w.pods["a"].inConfig = inConfig
		w.kubeDo(plan.Action{Kind: plan.RuntimeKill, UID: "a", Grace: -1, SpecGrace: 30})
		if _, known := w.pw.PodState("a"); known == inConfig {
			t.Errorf("in config %v: the pod workers know pod a after its runtime kill: %v, want %v", inConfig, known, !inConfig)
		}
	}
}

// TestBaselineReAddInShutdownRejected: as the world, an update of a pod
// out of config during the node shutdown is an ADD that the shutdown's
// admission rejects when the pod workers do not hold the pod's
// termination (they never knew pod a here): it reaches no worker; without
// the shutdown it does.
func TestBaselineReAddInShutdownRejected(t *testing.T) {
	for _, shuttingDown := range []bool{true, false} {
		w := baseKubeWorld(t, "")
		w.pods["a"].inConfig = false
		w.kube.shuttingDown = shuttingDown
		w.kubeDo(plan.Action{Kind: plan.Update, UID: "a", Grace: -1, SpecGrace: 30})
		if _, known := w.pw.PodState("a"); known == shuttingDown {
			t.Errorf("shutting down %v: the pod workers know pod a after its update: %v, want %v", shuttingDown, known, !shuttingDown)
		}
	}
}
