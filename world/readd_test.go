package world

import (
	"testing"
	"time"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/model/ops"
	"github.com/podsim/podsim/plan"
)

// TestReAddInShutdownRejected: during a node shutdown, an update of a pod
// out of config is upstream's ADD, which the shutdown's admission rejects
// unless the pod workers say its termination is requested. Pod a is
// created, removed (its kill sent) and, if forgotten, dropped by
// housekeeping's SyncKnownPods once terminated; then an update of a comes,
// after a shutdown or without one. Before the fix the world sent it in
// every case, and an update of a pod the workers had forgotten started it
// during the shutdown (the real kubelet's driver dropped it: swarm seed
// 9,056 there).
func TestReAddInShutdownRejected(t *testing.T) {
	node := &plan.Node{ShutdownGroups: []plan.ShutdownGroup{{Priority: 0, Grace: 2}}}
	for _, c := range []struct {
		name      string
		forgotten bool // the update comes after a's termination and a SyncKnown, not during the termination
		shutdown  bool
		want      int // updates of a sent by the update action
		asks      int // IsPodTerminationRequested of a asked by it
	}{
		{"shutdown, forgotten", true, true, 0, 1},
		{"shutdown, termination requested", false, true, 1, 1},
		{"no shutdown, forgotten", true, false, 1, 0},
		{"no shutdown, termination requested", false, false, 1, 0},
	} {
		at := 2 * time.Second // a's termination (grace 30 s) still runs
		actions := []plan.Action{actionOfA(plan.Create, 0), actionOfA(plan.Remove, time.Second)}
		if c.forgotten {
			at = 50 * time.Second
			actions = append(actions, plan.Action{Kind: plan.SyncKnown, At: at - 2*time.Second})
		}
		if c.shutdown {
			actions = append(actions, plan.Action{Kind: plan.Shutdown, At: at - time.Second})
		}
		actions = append(actions, actionOfA(plan.Update, at))
		got, asks, inUpdate := 0, 0, false
		runObserved(t, c.name, plan.Plan{Family: "node-shutdown", Clients: 1, Node: node, Actions: actions}, func(ev history.Event) {
			switch {
			case ev.Kind == history.Noted:
				if _, begins := ev.Note.(history.ActionBegins); begins {
					inUpdate = ev.At >= at
				} else if _, done := ev.Note.(history.ActionDone); done {
					inUpdate = false
				}
			case ev.Kind != history.ClientCall || !inUpdate:
			case isUpdateOfA(ev.Input):
				got++
			case ev.Input == ops.Input(ops.Query{Kind: ops.IsPodTerminationRequested, UID: "a"}):
				asks++
			}
		})
		if got != c.want || asks != c.asks {
			t.Errorf("%s: the update sent %d UpdatePod(s) and asked %d time(s), want %d and %d", c.name, got, asks, c.want, c.asks)
		}
	}
}

func isUpdateOfA(in ops.Input) bool {
	u, ok := in.(ops.UpdatePod)
	return ok && u.Type == ops.Update && u.Pod.UID == "a"
}
