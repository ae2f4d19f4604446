package world

import (
	"testing"
	"time"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/model/ops"
	"github.com/podsim/podsim/plan"
)

// TestRuntimeKillSkipsPodsInConfig: a plan's RuntimeKill is housekeeping's
// kill of a runtime-only pod, which upstream's HandlePodCleanups (and this
// world's killRuntimeOnlyPods) sends only for a UID no pod in config has.
// With a kubelet, a RuntimeKill of a pod in config reaches no worker;
// one of a pod that left config does, and so does any without a kubelet
// (the plan drives the workers directly). Before the fix the first case
// sent it: a runtime-only record beside the config pod, which the status
// manager (finished by its earlier record) deleted from the API while the
// record terminated (K3; regress/testdata/k3-runtime-kill-of-a-pod-in-config.txt).
func TestRuntimeKillSkipsPodsInConfig(t *testing.T) {
	node := &plan.Node{APIServer: true}
	inConfig := []plan.Action{actionOfA(plan.Create, 0), actionOfA(plan.RuntimeKill, time.Second)}
	left := []plan.Action{actionOfA(plan.Create, 0), actionOfA(plan.Vanish, time.Second), actionOfA(plan.RuntimeKill, 2*time.Second)}
	for _, c := range []struct {
		name    string
		node    *plan.Node
		actions []plan.Action
		want    int // runtime-only kills sent
	}{
		{"kubelet, pod in config", node, inConfig, 0},
		{"kubelet, pod left config", node, left, 1},
		{"no kubelet", nil, inConfig, 1},
	} {
		got := 0
		runObserved(t, c.name, plan.Plan{Family: "swarm", Clients: 1, Node: c.node, Actions: c.actions}, func(ev history.Event) {
			if u, ok := ev.Input.(ops.UpdatePod); ok && ev.Kind == history.ClientCall && u.RuntimeOnly && u.Type == ops.Kill {
				got++
			}
		})
		if got != c.want {
			t.Errorf("%s: %d runtime-only kills reached the workers, want %d", c.name, got, c.want)
		}
	}
}
