package check

import (
	"github.com/podsim/podsim/model/ops"
)

// partWalk lists a planned history part by part, for Replay, which checks
// one part at a time (parts are independent, see Replay): each part's
// operations in history order (a SyncKnownPods in every part that owns
// UIDs), and each SyncKnownPods' share for each part (its desired UIDs and
// result entries whose UIDs the part owns), grouped by part in history
// order, so that walking a part takes its shares one after the other. A
// Replay kit keeps one and reuses its arrays.
type partWalk struct {
	// ops[opsAt[q]:opsAt[q+1]] are the indices of part q's operations, a
	// SyncKnownPods i as ^i; broadcasts are the SyncKnownPods' indices and
	// owners the parts that own UIDs.
	opsAt, ops, broadcasts, owners []int32
	// desired[desiredAt[q]:desiredAt[q+1]] are the desired UIDs part q is
	// given, desiredOf the index of the SyncKnownPods each comes from; kept,
	// keptAt and keptOf are the same for the result entries.
	desired              []string
	desiredAt, desiredOf []int32
	kept                 ops.KnownPods
	keptAt, keptOf       []int32
	// itemPart (scratch) is the part of each item, in history order.
	itemPart []int32
}

// build lists plan's parts of list.
func (w *partWalk) build(plan *partitionPlan, list []ops.Op) {
	w.listOps(plan)
	w.itemPart = w.itemPart[:0]
	for _, i := range w.broadcasts {
		for _, uid := range list[i].Input.(ops.SyncKnownPods).Desired {
			w.itemPart = append(w.itemPart, int32(plan.partOfUID(uid)))
		}
	}
	desired := func(i int32) []string { return list[i].Input.(ops.SyncKnownPods).Desired }
	w.desired, w.desiredAt, w.desiredOf = shareOut(w, plan, w.desired, w.desiredAt, w.desiredOf, desired)
	w.itemPart = w.itemPart[:0]
	for _, n := range plan.knownNodes { // the planner looked the UIDs up
		w.itemPart = append(w.itemPart, int32(plan.partOfNode[n]))
	}
	known := func(i int32) ops.KnownPods { k, _ := list[i].Output.(ops.KnownPods); return k }
	w.kept, w.keptAt, w.keptOf = shareOut(w, plan, w.kept, w.keptAt, w.keptOf, known)
}

// shareOut groups the items of every SyncKnownPods by their part
// (itemPart, in history order: a stable counting sort) into out, with
// at[q] where part q's start and of[k] the operation of item out[k].
// Items of no part (a desired UID nothing else names) are dropped.
func shareOut[S ~[]E, E any](w *partWalk, plan *partitionPlan, out S, at, of []int32, items func(i int32) S) (S, []int32, []int32) {
	at = groupByPart(at, w.itemPart, plan.parts)
	out, of = grow(out, int(at[plan.parts])), grow(of, int(at[plan.parts]))
	k := 0
	for _, i := range w.broadcasts {
		for _, x := range items(i) {
			if q := w.itemPart[k]; q >= 0 { // at[q] is the next free slot of part q...
				out[at[q]], of[at[q]] = x, i
				at[q]++
			}
			k++
		}
	}
	unshift(at) // ...and now the end of part q
	return out, at, of
}

// listOps fills ops, opsAt and broadcasts: a stable counting sort of the
// operations by part (the planner counted each node's), a SyncKnownPods
// (^i, negative) in every part that owns UIDs. On locals: it is a pass
// over the history.
func (w *partWalk) listOps(plan *partitionPlan) {
	opsAt, partOfNode := grow(w.opsAt, plan.parts+1), plan.partOfNode
	clear(opsAt)
	for n, count := range plan.nodeOps {
		opsAt[partOfNode[n]+1] += count
	}
	w.owners = w.owners[:0]
	for q, owns := range plan.owns {
		if owns {
			w.owners = append(w.owners, int32(q))
			opsAt[q+1] += int32(len(plan.broadcasts))
		}
	}
	for q := range plan.parts {
		opsAt[q+1] += opsAt[q]
	}
	out, owners := grow(w.ops, int(opsAt[plan.parts])), w.owners
	for i, n := range plan.partOf { // opsAt[q] is the next free slot of part q...
		if n != broadcast {
			q := partOfNode[n]
			out[opsAt[q]] = int32(i)
			opsAt[q]++
			continue
		}
		for _, q := range owners {
			out[opsAt[q]] = ^int32(i)
			opsAt[q]++
		}
	}
	unshift(opsAt) // ...and now the end of part q
	w.opsAt, w.ops, w.broadcasts = opsAt, out, plan.broadcasts
}

// groupByPart returns at sized for parts, at[q] the first slot of part q
// in an array grouping the items by part (parts[k] < 0: no part), ready to
// be used as each part's next free slot; unshift turns it back into starts.
func groupByPart(at []int32, parts []int32, n int) []int32 {
	at = grow(at, n+1)
	clear(at)
	for _, p := range parts {
		if p >= 0 {
			at[p+1]++
		}
	}
	for q := range n {
		at[q+1] += at[q]
	}
	return at
}

// unshift turns next-free-slot positions (each the end of its group once
// filled) back into starts: at[q+1] = end of q, at[0] = 0.
func unshift(at []int32) {
	copy(at[1:], at[:len(at)-1])
	at[0] = 0
}

// grow returns xs resized to n, reusing its array when it has room.
func grow[S ~[]E, E any](xs S, n int) S {
	if cap(xs) < n {
		return make(S, n, n+n/4)
	}
	return xs[:n]
}

// partShares walks one part's shares of the SyncKnownPods in history order.
type partShares struct {
	w               *partWalk
	desired, kept   int32 // the next share's first item
	desiredEnd, end int32
}

func (w *partWalk) shares(q int) partShares {
	return partShares{w: w, desired: w.desiredAt[q], desiredEnd: w.desiredAt[q+1], kept: w.keptAt[q], end: w.keptAt[q+1]}
}

// next is the part's share of SyncKnownPods operation i (the next one).
func (s *partShares) next(i int32) ([]string, ops.KnownPods) {
	w, d, k := s.w, s.desired, s.kept
	for d < s.desiredEnd && w.desiredOf[d] == i {
		d++
	}
	for k < s.end && w.keptOf[k] == i {
		k++
	}
	desired, kept := w.desired[s.desired:d:d], w.kept[s.kept:k:k]
	s.desired, s.kept = d, k
	return desired, kept
}
