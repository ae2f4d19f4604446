package liveness

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/model/ops"
)

// TestFindKnownIsTheMapLookup: findKnown returns what a map from UID to
// the result's entries (the later entry winning) returns, for sorted and
// unsorted results, repeated UIDs included; and isDesired is membership.
func TestFindKnownIsTheMapLookup(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	uids := []string{"a", "a1", "b", "c", "d"}
	for round := range 500 {
		var out ops.KnownPods
		for range r.IntN(6) {
			out = append(out, ops.KnownPod{UID: uids[r.IntN(len(uids))], State: ops.WorkType(r.IntN(3))})
		}
		if r.IntN(2) == 0 {
			slices.SortStableFunc(out, func(a, b ops.KnownPod) int { return strings.Compare(a.UID, b.UID) })
		}
		m := map[types.UID]ops.KnownPod{}
		for _, k := range out {
			m[types.UID(k.UID)] = k
		}
		for _, uid := range append(slices.Clone(uids), "0", "e") {
			want, wantOK := m[types.UID(uid)]
			if got, ok := findKnown(out, types.UID(uid)); got != want || ok != wantOK {
				t.Fatalf("round %d, %v, %s: got %+v %v, want %+v %v", round, out, uid, got, ok, want, wantOK)
			}
		}
	}
	kc := &knownCall{desired: []string{"a", "c"}}
	for uid, want := range map[types.UID]bool{"a": true, "b": false, "c": true, "d": false} {
		if kc.isDesired(uid) != want {
			t.Fatalf("isDesired(%s) = %v, want %v", uid, !want, want)
		}
	}
}
