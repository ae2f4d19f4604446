package probe

import (
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/world/slab"
)

// TestIndex: as the plan names pods one by one (each a new sorted list, a
// pod inserted before others moving them), the index, rebuilt when the
// list grew as Take does, finds every pod at its position and its full
// name in its names, and no UID that is not a pod: one-letter UIDs by
// their letter, others by a scan, static pods sharing one full name.
// Fails on a stale position (a pod inserted before others) or name.
func TestIndex(t *testing.T) {
	adds := [][2]string{{"m", "pod-m_default"}, {"c", "static_default"}, {"x", "pod-x_default"}, {"a", "static_default"},
		{"u-2", "pod-u_default"}, {"b", "pod-b_default"}, {"a1", "pod-a1_default"}, {"z", "pod-m_default"}} // UID, full name
	var (
		x     index
		names slab.Bump[string]
		uids  []types.UID
		fulls []string // by position in uids
	)
	for n, add := range adds {
		uid := types.UID(add[0])
		i, _ := slices.BinarySearch(uids, uid)
		uids, fulls = slices.Insert(slices.Clone(uids), i, uid), slices.Insert(slices.Clone(fulls), i, add[1])
		if x.of != len(uids) {
			x.build(uids, func(i int) string { return fulls[i] }, &names)
		}
		want := slices.Compact(slices.Sorted(slices.Values(fulls)))
		if !slices.Equal(x.names, want) {
			t.Fatalf("after %d adds: names %q, want %q", n+1, x.names, want)
		}
		for i, uid := range uids {
			c := x.find(types.UID(strings.Clone(string(uid))))
			if c == nil || c.at != i || c.uid != uid || c.fullName != fulls[i] || x.names[c.nameAt] != fulls[i] {
				t.Fatalf("after %d adds: %s found as %+v, want at %d, name %q", n+1, uid, c, i, fulls[i])
			}
		}
		for _, uid := range []types.UID{"q", "zz", "A", "", "a2"} {
			if c := x.find(uid); c != nil {
				t.Fatalf("after %d adds: %q, no pod, found as %+v", n+1, uid, c)
			}
		}
	}
}
