package conform

import (
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/model/ops"
	"github.com/podsim/podsim/plan"
)

// runRuntimeKill: with a kubelet, pod a is created and admitted, leaves
// config (vanish) or not, then a RuntimeKill of a makes the runtime-only
// kill or not.
func runRuntimeKill(vanish, sent bool) []history.Violation {
	actions := []plan.Action{act(plan.Create, "a", 0), act(plan.Vanish, "a", time.Second), act(plan.RuntimeKill, "a", 2*time.Second)}
	if !vanish {
		actions = append(actions[:1], actions[2])
	}
	s := newScript(plan.Plan{Clients: 1, Node: &plan.Node{APIServer: true}, Actions: actions}, true)
	s.action(func() { s.admitCreate("a") })
	if vanish {
		s.action(func() {
			p := s.v.pod(types.UID("a"))
			p.InConfig, p.InAPI = false, false
		})
	}
	s.action(func() {
		if sent {
			kill := ops.UpdatePod{Type: ops.Kill, RuntimeOnly: true, Pod: ops.Pod{UID: "a", Name: "pod-a"},
				Kill: ops.KillOptions{GraceOverride: 1, HasGraceOverride: true}}
			s.call("client/0", kill, nil)
		}
	})
	return s.verdict()
}

// TestP1RuntimeKillOnlyForPodsOutOfConfig: housekeeping's runtime-only
// kill (a plan's RuntimeKill) is sent only for a UID no pod in config has
// (upstream's HandlePodCleanups), so with a kubelet a world that sends it
// for a pod in config is wrong (the K3 false alarm of session 25 came from
// one), and one that drops it for a pod that left config is wrong too.
func TestP1RuntimeKillOnlyForPodsOutOfConfig(t *testing.T) {
	wantNone(t, runRuntimeKill(false, false))
	wantViolation(t, runRuntimeKill(false, true), "P1", "made 1 UpdatePod call(s), want 0")
	wantNone(t, runRuntimeKill(true, true))
	wantViolation(t, runRuntimeKill(true, false), "P1", "made 0 UpdatePod call(s), want 1")
}
