package safety

import (
	"math/rand/v2"
	"testing"

	"github.com/podsim/podsim/model/ops"
)

// TestWhatUpdateIsTheDescription: a request's or completion's description,
// kept as the update's fields and formatted when a message prints it, is
// what safetyDescribeUpdate says of the whole update, for random updates
// (every field drawn, those the description must not read too).
func TestWhatUpdateIsTheDescription(t *testing.T) {
	r := rand.New(rand.NewPCG(19, 8))
	for i := 0; i < 2000; i++ {
		u := ops.UpdatePod{Type: ops.UpdateType(r.IntN(4)), RuntimeOnly: r.IntN(3) == 0,
			Pod: ops.Pod{UID: "u", Name: "n", Namespace: "ns", Static: r.IntN(2) == 0, Version: r.IntN(9),
				DeletionTimestamp: r.IntN(3) == 0, DeletionGrace: r.Int64N(40), HasDeletionGrace: r.IntN(2) == 0,
				Phase: ops.Phase(r.IntN(4)), SpecGrace: r.Int64N(40)},
			Kill: ops.KillOptions{Evict: r.IntN(2) == 0, GraceOverride: r.Int64N(9), HasGraceOverride: r.IntN(2) == 0,
				CompletionID: r.IntN(5)}}
		if got, want := whatUpdate(&u).String(), safetyDescribeUpdate(u); got != want {
			t.Fatalf("%+v: described %q, want %q", u, got, want)
		}
	}
	if got := whatText("SyncKnownPods (orphan)").String(); got != "SyncKnownPods (orphan)" {
		t.Fatalf("whatText: %q", got)
	}
}
