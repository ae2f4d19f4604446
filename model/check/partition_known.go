package check

import (
	"slices"

	"github.com/podsim/podsim/model/ops"
)

// knownSplit restricts one SyncKnownPods to each part that owns UIDs: the
// desired UIDs and the result entries of that part. It sorts both lists by
// part once (a stable counting sort), so that each part's share is a
// subslice. Replay keeps one and reuses its buffers; a part's lists are
// valid until the next split.
type knownSplit struct {
	desired    []string
	kept       ops.KnownPods
	desiredAt  []int // part p's desired UIDs are desired[desiredAt[p]:desiredAt[p+1]]
	keptAt     []int // and its result entries kept[keptAt[p]:keptAt[p+1]]
	partOfItem []int // scratch: the part of each entry (-1: none)
}

func (k *knownSplit) split(plan *partitionPlan, op ops.Op) {
	known, _ := op.Output.(ops.KnownPods)
	k.desired, k.desiredAt = bucketByPart(k, plan, k.desired, k.desiredAt, op.Input.(ops.SyncKnownPods).Desired,
		func(uid string) string { return uid })
	k.kept, k.keptAt = bucketByPart(k, plan, k.kept, k.keptAt, known, func(e ops.KnownPod) string { return e.UID })
}

// bucketByPart fills out with the entries of xs grouped by the part of
// their UID, in their order within a part, and at with where each part's
// group starts; entries of no part are dropped.
func bucketByPart[S ~[]E, E any](k *knownSplit, plan *partitionPlan, out S, at []int, xs S, uid func(E) string) (S, []int) {
	at = slices.Grow(at[:0], plan.parts+1)[:plan.parts+1]
	clear(at)
	k.partOfItem = k.partOfItem[:0]
	for _, x := range xs {
		p := plan.partOfUID(uid(x))
		k.partOfItem = append(k.partOfItem, p)
		if p >= 0 {
			at[p+1]++
		}
	}
	for p := range plan.parts {
		at[p+1] += at[p]
	}
	out = slices.Grow(out[:0], at[plan.parts])[:at[plan.parts]]
	for i, p := range k.partOfItem { // at[p] is the next free slot of part p...
		if p >= 0 {
			out[at[p]] = xs[i]
			at[p]++
		}
	}
	copy(at[1:], at[:plan.parts]) // ...and now the end of part p: shift back
	at[0] = 0
	return out, at
}

// part returns part p's share (in buffers reused by the next split).
func (k *knownSplit) part(p int) (ops.SyncKnownPods, ops.KnownPods) {
	desired := k.desired[k.desiredAt[p]:k.desiredAt[p+1]:k.desiredAt[p+1]]
	return ops.SyncKnownPods{Desired: desired}, k.kept[k.keptAt[p]:k.keptAt[p+1]:k.keptAt[p+1]]
}

// partOfUID is the part that owns uid, or -1: a desired UID with no
// operation, which no part needs. (Short, so that the compiler inlines the
// cache hit.)
func (plan *partitionPlan) partOfUID(uid string) int {
	if e := plan.recent.slot(uid); e.node >= 0 && e.uid == uid {
		return plan.partOfNode[e.node]
	}
	return plan.partOfUIDMissed(uid)
}

func (plan *partitionPlan) partOfUIDMissed(uid string) int {
	if n, ok := plan.uidNode[uid]; ok {
		return plan.partOfNode[n]
	}
	return -1
}
