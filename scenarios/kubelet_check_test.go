package scenarios

import (
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/sim"
	"github.com/podsim/podsim/workers"
)

// checkWorld is a world with a node, pods a, b and c in config (a admitted,
// b rejected, c admitted), not run: the checks are called by hand on states
// planted in it.
func checkWorld() *World {
	plan := Plan{Family: "check", Clients: 1, Node: &Node{CPU: 4, APIServer: true}}
	w := NewWorld(plan, sim.NewReplay(nil), sim.NewReplay(nil), sim.RandomWalk{})
	for _, uid := range []types.UID{"a", "b", "c"} {
		w.pods[uid] = &configPod{action: Action{UID: uid, CPU: 2, SpecGrace: 30}, inConfig: true, inAPI: true,
			phase: v1.PodRunning, firstAddAt: 0, deletedAt: unset, admitted: uid != "b", rejected: uid == "b"}
	}
	return w
}

func running() workers.Answers {
	return workers.Answers{Known: true, CouldHaveRunning: true}
}

func terminated(finished bool) workers.Answers {
	return workers.Answers{Known: true, KnownTerminated: true, TerminationRequested: true,
		ContainersBeTerminating: true, RuntimeBeRemoved: true, BeFinished: finished}
}

// TestKubeletCheckCatches plants each kind of K violation and wants it
// reported; its twin (the same call on a correct state) must report nothing.
func TestKubeletCheckCatches(t *testing.T) {
	for _, tc := range []struct {
		name, want string
		plant      func(w *World, c *kubeletCheck, bad bool)
	}{
		{"K1 counts a rejected pod", "K1", func(w *World, c *kubeletCheck, bad bool) {
			c.answers["a"] = running()
			c.admissionBegins(w)
			counted := []types.UID{"a"}
			if bad {
				counted = append(counted, "b")
			}
			c.admitted(w, "c", counted)
		}},
		{"K1 counts a known-terminated pod", "K1", func(w *World, c *kubeletCheck, bad bool) {
			c.answers["a"] = terminated(false)
			c.admissionBegins(w)
			var counted []types.UID
			if bad {
				counted = []types.UID{"a"}
			}
			c.admitted(w, "c", counted)
		}},
		{"K1 omits a pod that could run", "K1", func(w *World, c *kubeletCheck, bad bool) {
			c.answers["a"] = running()
			c.admissionBegins(w)
			var counted []types.UID
			if !bad {
				counted = []types.UID{"a"}
			}
			c.admitted(w, "c", counted)
		}},
		{"K2 terminal phase while running", "K2", func(w *World, c *kubeletCheck, bad bool) {
			c.answers["a"] = terminated(false)
			if bad {
				c.answers["a"] = running()
			}
			c.phaseWritten(w, "a", v1.PodSucceeded)
		}},
		{"K3 delete before finished", "K3", func(w *World, c *kubeletCheck, bad bool) {
			c.answers["a"] = terminated(!bad)
			c.deleted(w, "a")
		}},
		{"K4 restart of a rejected pod", "K4", func(w *World, c *kubeletCheck, bad bool) {
			uid := types.UID("a")
			if bad {
				uid = "b"
			}
			c.restarted(w, uid)
		}},
		{"K4 SyncPod of a rejected pod", "K4", func(w *World, c *kubeletCheck, bad bool) {
			uid := types.UID("a")
			if bad {
				uid = "b"
			}
			c.syncPodBegins(w, uid)
		}},
		{"K5 SyncPod of a pod added during shutdown", "K5", func(w *World, c *kubeletCheck, bad bool) {
			w.pods["c"].addedInShutdown = bad
			c.syncPodBegins(w, "c")
		}},
		{"K5 status function keeps the phase", "K5", func(w *World, c *kubeletCheck, bad bool) {
			w.Bugs.B4ShutdownKeepsPhase = bad
			c.shutdownKill(w, "a", w.shutdownStatusFn())
		}},
		{"K5 snapshot pod never killed", "K5", func(w *World, c *kubeletCheck, bad bool) {
			c.shutdownSnapshot = []types.UID{"a", "c"}
			c.shutdownKill(w, "a", w.shutdownStatusFn())
			if !bad {
				c.shutdownKill(w, "c", w.shutdownStatusFn())
			}
			c.shutdownDone(w)
		}},
		{"L7 deleted pod left in the API", "L7", func(w *World, c *kubeletCheck, bad bool) {
			g := int64(0)
			w.pods["a"].deletion = &g
			w.pods["a"].inAPI = bad
			c.settled(w)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, bad := range []bool{false, true} {
				w := checkWorld()
				tc.plant(w, &w.kube.check, bad)
				var got []string
				for _, v := range w.Violations {
					got = append(got, v.Invariant+": "+v.Message)
				}
				switch {
				case bad && (len(got) != 1 || !strings.HasPrefix(got[0], tc.want+":")):
					t.Errorf("planted: got %q, want one %s violation", got, tc.want)
				case !bad && len(got) > 0:
					t.Errorf("correct state: got %q, want none", got)
				}
			}
		})
	}
}

// TestKubeletCheckK3AcceptsTerminatePodWindow: the delete may come between
// SyncTerminatedPod's success and the pod workers' commit of "finished".
func TestKubeletCheckK3AcceptsTerminatePodWindow(t *testing.T) {
	w := checkWorld()
	c := &w.kube.check
	c.answers["a"] = terminated(false)
	w.kube.callEnded(syncFns["SyncTerminatedPod"], "a", nil, false)
	c.deleted(w, "a")
	if len(w.Violations) > 0 {
		t.Fatalf("got %v, want none", w.Violations)
	}
	w.kube.callBegan(w, syncFns["SyncPod"], "a") // a new incarnation: the window closed
	c.deleted(w, "a")
	if len(w.Violations) != 1 || w.Violations[0].Invariant != "K3" {
		t.Fatalf("got %v, want one K3", w.Violations)
	}
}

// TestKubeletBusy: pending status writes, echoes, final deletes and running
// actors keep the kubelet busy; a settled world is not.
func TestKubeletBusy(t *testing.T) {
	g := int64(0)
	for _, tc := range []struct {
		name  string
		plant func(w *World)
		want  bool
	}{
		{"settled", func(w *World) {}, false},
		{"echo due", func(w *World) { w.pods["a"].echoDue = true }, true},
		{"status to write", func(w *World) { w.kube.statusOf("a").phase = v1.PodFailed }, true},
		{"written", func(w *World) { w.kube.statusOf("a").phase, w.pods["a"].apiPhase = v1.PodFailed, v1.PodFailed }, false},
		{"delete due", func(w *World) { w.pods["a"].deletion, w.kube.statusOf("a").finished = &g, true }, true},
		{"actor running", func(w *World) { w.actorsRunning = 1 }, true},
	} {
		w := checkWorld()
		tc.plant(w)
		if got := w.KubeletBusy(); got != tc.want {
			t.Errorf("%s: got busy=%v, want %v", tc.name, got, tc.want)
		}
	}
}
