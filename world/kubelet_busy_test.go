package world

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/sim"
)

// checkWorld is a world with a node, pods a, b and c in config (a admitted,
// b rejected, c admitted), not run: states are planted in it by hand.
func checkWorld() *World {
	pl := plan.Plan{Family: "check", Clients: 1, Node: &plan.Node{CPU: 4, APIServer: true}}
	w := NewWorld(pl, sim.NewReplay(nil), sim.NewReplay(nil), sim.RandomWalk{})
	for _, uid := range []types.UID{"a", "b", "c"} {
		*w.newPod(plan.Action{UID: uid}) = configPod{action: plan.Action{UID: uid, CPU: 2, SpecGrace: 30}, inConfig: true, inAPI: true,
			phase: v1.PodRunning, firstAddAt: 0, deletedAt: unset, admitted: uid != "b", rejected: uid == "b"}
	}
	return w
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
		{"echo due", func(w *World) { w.pod("a").echoDue = true }, true},
		{"status to write", func(w *World) { w.kube.statusOf("a").Phase = v1.PodFailed }, true},
		{"written", func(w *World) { w.kube.statusOf("a").Phase, w.pod("a").apiPhase = v1.PodFailed, v1.PodFailed }, false},
		{"delete due", func(w *World) { w.pod("a").deletion, w.kube.statusOf("a").Finished = &g, true }, true},
		{"actor running", func(w *World) { w.actorsRunning = 1 }, true},
	} {
		w := checkWorld()
		tc.plant(w)
		if got := w.KubeletBusy(); got != tc.want {
			t.Errorf("%s: got busy=%v, want %v", tc.name, got, tc.want)
		}
	}
}
