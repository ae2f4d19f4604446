package conform

import (
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/model/ops"
)

// TestListsIsMembership: lists finds a UID in a sorted result by search
// and in an unsorted one by scan, and misses one the result lacks.
func TestListsIsMembership(t *testing.T) {
	sorted := ops.KnownPods{{UID: "a"}, {UID: "c"}, {UID: "e"}}
	unsorted := ops.KnownPods{{UID: "e"}, {UID: "a"}, {UID: "c"}}
	for _, uid := range []types.UID{"a", "b", "c", "d", "e", "f"} {
		want := slices.ContainsFunc(sorted, func(k ops.KnownPod) bool { return k.UID == string(uid) })
		if got := lists(sorted, true, uid); got != want {
			t.Fatalf("sorted, %s: got %v, want %v", uid, got, want)
		}
		if got := lists(unsorted, false, uid); got != want {
			t.Fatalf("unsorted, %s: got %v, want %v", uid, got, want)
		}
	}
}
