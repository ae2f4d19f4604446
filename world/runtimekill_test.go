package world

import (
	"testing"
	"time"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/model/ops"
	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/sim"
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
	act := func(kind plan.ActionKind, at time.Duration) plan.Action {
		return plan.Action{Kind: kind, At: at, UID: "a", Name: "web", SpecGrace: 30, Grace: -1, CPU: 1, Mem: 1}
	}
	inConfig := []plan.Action{act(plan.Create, 0), act(plan.RuntimeKill, time.Second)}
	left := []plan.Action{act(plan.Create, 0), act(plan.Vanish, time.Second), act(plan.RuntimeKill, 2*time.Second)}
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
		p := plan.Plan{Family: "swarm", Clients: 1, Node: c.node, Actions: c.actions}
		st := plan.SeedStreams(1)
		w := NewWorld(p, st.Schedule, st.Faults, sim.RandomWalk{})
		got := 0
		w.Observe(func(ev history.Event) {
			if u, ok := ev.Input.(ops.UpdatePod); ok && ev.Kind == history.ClientCall && u.RuntimeOnly && u.Type == ops.Kill {
				got++
			}
		})
		if err := w.Run(); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got != c.want {
			t.Errorf("%s: %d runtime-only kills reached the workers, want %d", c.name, got, c.want)
		}
	}
}
