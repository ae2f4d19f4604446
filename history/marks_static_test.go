package history

import (
	"testing"

	"github.com/podsim/podsim/model/ops"
)

// TestMarkerStaticNameFollowsUpdates: the Marker keeps a static pod's
// full name as its latest update gives it (made only when it changes),
// whatever it was before, names longer than the stack room included.
func TestMarkerStaticNameFollowsUpdates(t *testing.T) {
	m := NewMarker()
	long := "a-static-pod-whose-name-is-longer-than-sixty-four-bytes-of-stack-room"
	for _, n := range []string{"a", "a", "b", long, long, "a"} {
		m.update(ops.UpdatePod{Type: ops.Update, Pod: ops.Pod{UID: "u", Name: n, Namespace: "ns", Static: true}})
		if got, want := m.pod("u").static, n+"_ns"; got != want {
			t.Fatalf("after an update of %s: static %q, want %q", n, got, want)
		}
	}
}
