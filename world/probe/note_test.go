package probe

import (
	"reflect"
	"testing"

	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/model/ops"
)

// TestKinds: the world hands Note only the kinds in Kinds; an event of any
// other kind, of any input, held or not, would have changed nothing of the
// memo. Fails when a kind Note reads is left out of Kinds.
func TestKinds(t *testing.T) {
	inputs := []ops.Input{nil, ops.UpdatePod{Pod: ops.Pod{UID: "u2"}}, ops.KillPodNowDone{UID: "u2"}, ops.Query{},
		ops.SyncKnownPods{Desired: []string{"u1"}}, ops.CancelFired{UID: "u3"}, ops.CompletionFired{UID: "u3"},
		ops.SyncBegin{UID: "u1"}}
	fresh := func() Memo {
		return Memo{last: &history.Probe{}, touched: []types.UID{"u1"}, holder: "g",
			calls: []call{{g: "g", id: 3, uid: "u1"}, {g: "h", id: 4, all: true}}}
	}
	for k := history.EventKind(0); k < history.NumEventKinds; k++ {
		if Kinds&(1<<k) != 0 {
			continue
		}
		for _, in := range inputs {
			for _, g := range []string{"g", "h", "worker/u1", "other"} {
				m := fresh()
				m.Note(&history.Event{Kind: k, Goroutine: g, ID: 3, Input: in})
				if want := fresh(); !reflect.DeepEqual(m, want) {
					t.Fatalf("a %v event (input %#v, goroutine %s) changed the memo: %+v, was %+v", k, in, g, m, want)
				}
			}
		}
	}
}
