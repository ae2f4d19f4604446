package conform

import (
	"testing"

	"github.com/podsim/podsim/plan"
)

// TestIsPodNameIsPodName: isPodName, which compares without building the
// name, agrees with plan.Action.PodName on named and unnamed actions and
// on names that are, are not, or nearly are theirs. It fails when the
// prefix or the UID is not compared (say a bare UID taken for its name).
func TestIsPodNameIsPodName(t *testing.T) {
	actions := []plan.Action{{UID: "a"}, {UID: "ab"}, {UID: "a", Name: "web"}, {UID: "", Name: ""}, {UID: "pod-a"}}
	names := []string{"", "a", "pod-", "pod-a", "pod-ab", "pod-b", "web", "pod-pod-a", "xod-a", "pod-a "}
	for _, a := range actions {
		for _, n := range names {
			if got, want := isPodName(n, a), n == a.PodName(); got != want {
				t.Errorf("isPodName(%q, %+v) = %v; PodName is %q", n, a, got, a.PodName())
			}
		}
	}
}
