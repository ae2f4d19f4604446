package conform

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/model/ops"
)

// TestKnownListerIsMembership: knownLister finds a UID in a sorted result
// by a walk beside the UIDs asked (in UID order, some skipped, as
// housekeepingReturn asks only for pods in config) and in an unsorted one
// by scan, and misses one the result lacks: on random results and random
// questions, against a scan of the result.
func TestKnownListerIsMembership(t *testing.T) {
	all := []types.UID{"a", "b", "c", "d", "e", "f", "g"}
	for seed := range uint64(500) {
		rng := rand.New(rand.NewPCG(seed, 1))
		var known ops.KnownPods
		for _, uid := range all {
			if rng.IntN(2) == 0 {
				known = append(known, ops.KnownPod{UID: string(uid)})
			}
		}
		sorted := rng.IntN(3) > 0
		if !sorted {
			rng.Shuffle(len(known), func(i, j int) { known[i], known[j] = known[j], known[i] })
		}
		l := knownLister{known: known, sorted: slices.IsSortedFunc(known, func(a, b ops.KnownPod) int { return strings.Compare(a.UID, b.UID) })}
		for _, uid := range all {
			if rng.IntN(3) == 0 {
				continue // not asked
			}
			want := slices.ContainsFunc(known, func(k ops.KnownPod) bool { return k.UID == string(uid) })
			if got := l.has(uid); got != want {
				t.Fatalf("seed %d, known %v (sorted %v), %s: got %v, want %v", seed, known, l.sorted, uid, got, want)
			}
		}
	}
}
