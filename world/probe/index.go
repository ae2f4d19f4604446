package probe

import (
	"slices"

	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/world/slab"
)

// index finds a pod of the plan: its position among the plan's UIDs
// (sorted) and its full name's among their full names, so the probe reads
// and writes a pod's answers and its mirror answer without a search. It is
// built for the first `of` UIDs, again when the plan names a pod (the UIDs
// grow, never shrink: a list of the same length is the same list).
type index struct {
	of     int
	names  []string // the full names, sorted, each once
	pods   []pod    // by position
	letter [26]*pod // by a one-letter UID's letter (plan.LetterIndex)
}

// pod is a pod of the plan as the probe finds it.
type pod struct {
	uid      types.UID
	fullName string
	at       int // its position among the UIDs
	nameAt   int // its full name's in names
}

// build indexes uids, the full name of uids[i] being fullName(i); the
// names list is new, from names (an older one may still be read).
func (x *index) build(uids []types.UID, fullName func(i int) string, names *slab.Bump[string]) {
	list := names.Make(len(uids))
	x.pods, x.letter, x.of = x.pods[:0], [26]*pod{}, len(uids)
	for i, uid := range uids {
		f := fullName(i)
		list = append(list, f)
		x.pods = append(x.pods, pod{uid: uid, fullName: f, at: i})
	}
	slices.Sort(list)
	x.names = slices.Compact(list)
	for i := range x.pods {
		c := &x.pods[i]
		c.nameAt, _ = slices.BinarySearch(x.names, c.fullName)
		if l, ok := plan.LetterIndex(c.uid); ok {
			x.letter[l] = c
		}
	}
}

// find is uid's pod (nil: not a pod of the plan). A one-letter UID's is
// found by its letter, any other by a scan (of a few).
func (x *index) find(uid types.UID) *pod {
	if l, ok := plan.LetterIndex(uid); ok {
		return x.letter[l]
	}
	for i := range x.pods {
		if x.pods[i].uid == uid {
			return &x.pods[i]
		}
	}
	return nil
}
