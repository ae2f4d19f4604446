package fakeruntime

import (
	"slices"

	"k8s.io/apimachinery/pkg/types"
)

// podCounts is the running containers per pod, by UID: a few entries, so
// a search, with no hash and no map to make or walk.
type podCounts []podCount

type podCount struct {
	uid types.UID
	n   int
}

// find is where uid is or would go, and whether it is there.
func (c podCounts) find(uid types.UID) (int, bool) {
	lo, hi := 0, len(c)
	for lo < hi {
		if h := int(uint(lo+hi) >> 1); c[h].uid < uid {
			lo = h + 1
		} else {
			hi = h
		}
	}
	return lo, lo < len(c) && c[lo].uid == uid
}

// get is uid's count (0 if never set).
func (c podCounts) get(uid types.UID) int {
	if i, ok := c.find(uid); ok {
		return c[i].n
	}
	return 0
}

// set makes uid's count n.
func (c *podCounts) set(uid types.UID, n int) {
	if i, ok := c.find(uid); ok {
		(*c)[i].n = n
	} else {
		*c = slices.Insert(*c, i, podCount{uid: uid, n: n})
	}
}
