package tape

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/model/ops"
)

// TestWithoutDropsMirrorQueriesOfGoneStaticNames: a GE cut that leaves out
// an adopted static pod leaves out the mirror-pod queries of its full name
// too (their answer is about the UID that started under it, api-shapes
// seed 4,008 with held wake-ups: the model, without the adopted UID, wanted
// false), and keeps those of every other name and the other UIDs'
// operations.
func TestWithoutDropsMirrorQueriesOfGoneStaticNames(t *testing.T) {
	at := time.Unix(0, 0)
	h := New(func() time.Time { return at }, nil)
	update := func(uid, name string, static bool) {
		id := h.Call("driver", ops.UpdatePod{Type: ops.Create, Pod: ops.Pod{UID: uid, Name: name, Namespace: "default", Static: static, Version: 1, SpecGrace: 30}})
		h.Ret("driver", id, nil)
	}
	mirror := func(name string) {
		id := h.Call("driver", ops.Query{Kind: ops.IsPodForMirrorPodTerminatingByFullName, FullName: name + "_default"})
		h.Ret("driver", id, ops.Answer(false))
	}
	update("a", "web", true)
	update("b", "api", true)
	update("c", "db", false)
	mirror("web")
	mirror("api")
	mirror("db")
	got := describeOps(h.Without(0, h.Seq+1, map[string]bool{"a": true, "c": true}))
	want := []string{"UpdatePod b", "mirror api_default", "mirror db_default"}
	if !slices.Equal(got, want) {
		t.Fatalf("kept %v, want %v", got, want)
	}
}

func describeOps(hist history.History) []string {
	var out []string
	for _, op := range hist.Ops {
		switch in := op.Input.(type) {
		case ops.UpdatePod:
			out = append(out, "UpdatePod "+in.Pod.UID)
		case ops.Query:
			out = append(out, "mirror "+in.FullName)
		default:
			out = append(out, fmt.Sprintf("%T", in))
		}
	}
	return out
}
