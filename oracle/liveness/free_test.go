package liveness

import (
	"reflect"
	"testing"

	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/oracle"
)

// TestTracksFreshAfterReset: liveness reuses the pod tracks of the runs
// before its Reset, each as newPodTrack makes it: one the last run
// dirtied is handed out fresh, and none twice.
func TestTracksFreshAfterReset(t *testing.T) {
	l := newLiveness(Periods{})
	for _, uid := range []types.UID{"a", "b"} {
		p := l.track(uid)
		p.createdAt, p.terminatedOK, p.cur = 5, true, oracle.Answers{Known: true}
		p.calls.called[0] = true
	}
	l.Reset()
	seen := map[*podTrack]bool{}
	for _, uid := range []types.UID{"c", "d", "e"} {
		p := l.track(uid)
		if !reflect.DeepEqual(p, newPodTrack(uid)) || seen[p] {
			t.Fatalf("track of %s: %+v (handed out before: %v), want %+v", uid, *p, seen[p], *newPodTrack(uid))
		}
		seen[p] = true
		p.createdAt = 9
	}
}
