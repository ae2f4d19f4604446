// Package sdjudge judges the kills of one node shutdown on the real
// kubelet against the node shutdown manager's contract (P7, docs/spec.md
// §1.13), from what the driver saw of them:
//
//   - the pods killed are those of the snapshot the processing took, each
//     once, none left out once the processing ended;
//   - a pod belongs to the last group (by ascending priority) whose
//     priority is at most its own, the first group taking any lower one;
//     it is killed with grace min(its group's grace, its spec's grace) and
//     without evict;
//   - the groups are killed in ascending priority, all the pods of a group
//     at one instant; a group is over when all its kills returned or its
//     grace ran out, whichever comes first, and the next group (or the
//     processing's end) follows at that very instant — no sooner, no later.
//
// Times are the bubble's, so the instants compare exactly. The package
// knows nothing of the kubelet: the driver hands it plain values.
package sdjudge

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/types"
)

// Group is one of the manager's priority groups (grace in seconds).
type Group struct {
	Priority int32
	Grace    int64
}

// Pod is a pod of the snapshot: its priority and spec grace (nil: none).
type Pod struct {
	UID       types.UID
	Priority  int32
	SpecGrace *int64
}

// Kill is one kill the manager sent: its grace override (nil: none) and
// evict flag, when it was sent and, if it returned, when.
type Kill struct {
	UID      types.UID
	Grace    *int64
	Evict    bool
	At       time.Duration
	Returned bool
	Back     time.Duration
}

// Shutdown is one shutdown's processing as seen: the manager's groups, the
// snapshot, the kills in the order sent, and its end if it ended.
type Shutdown struct {
	Groups   []Group
	Snapshot []Pod
	Kills    []Kill
	Ended    bool
	End      time.Duration
}

// Judge says what in s breaks the contract, in a fixed order; nil if
// nothing does.
func Judge(s Shutdown) []string {
	groups := slices.SortedStableFunc(slices.Values(s.Groups), func(a, b Group) int { return cmp.Compare(a.Priority, b.Priority) })
	pods := map[types.UID]Pod{}
	for _, p := range s.Snapshot {
		pods[p.UID] = p
	}
	var out []string
	members := make([][]Kill, len(groups))
	killed := map[types.UID]bool{}
	for _, k := range s.Kills {
		p, ok := pods[k.UID]
		switch {
		case !ok:
			out = append(out, fmt.Sprintf("the node shutdown killed pod %s, which is not in the snapshot its processing took", k.UID))
			continue
		case killed[k.UID]:
			out = append(out, fmt.Sprintf("the node shutdown killed pod %s a second time", k.UID))
			continue
		}
		killed[k.UID] = true
		g := groupOf(groups, p.Priority)
		members[g] = append(members[g], k)
		if want := graceOf(groups[g], p); k.Evict || k.Grace == nil || *k.Grace != want {
			out = append(out, fmt.Sprintf("the node shutdown killed pod %s (priority %d, shutdown group %d) with grace %s and evict %v, want grace %d without evict",
				k.UID, p.Priority, g, ShowGrace(k.Grace), k.Evict, want))
		}
	}
	out = append(out, schedule(groups, members, s)...)
	if s.Ended {
		for _, p := range s.Snapshot {
			if !killed[p.UID] {
				out = append(out, fmt.Sprintf("the node shutdown's processing ended at %v without killing pod %s of its snapshot", s.End, p.UID))
			}
		}
	}
	return out
}

// schedule judges when each group began against when the one before it
// was over, and the processing's end against the last.
func schedule(groups []Group, members [][]Kill, s Shutdown) []string {
	var out []string
	prev := -1
	var prevAt time.Duration
	for g, ks := range members {
		if len(ks) == 0 {
			continue // upstream waits for no group without pods
		}
		at := ks[0].At
		for _, k := range ks[1:] {
			if k.At != at {
				out = append(out, fmt.Sprintf("the node shutdown killed pod %s of group %d at %v, and pod %s of the same group at %v: a group's kills are sent at once",
					ks[0].UID, g, at, k.UID, k.At))
			}
		}
		what := fmt.Sprintf("shutdown group %d began", g)
		if prev >= 0 {
			out = append(out, handover(groups[prev], prev, prevAt, members[prev], what, at)...)
		}
		prev, prevAt = g, at
	}
	if prev >= 0 && s.Ended {
		out = append(out, handover(groups[prev], prev, prevAt, members[prev], "the shutdown's processing ended", s.End)...)
	}
	return out
}

// handover judges next (what happened at at) against group g, begun at
// began with kills ks: it comes when g is over, when its kills all
// returned or its grace ran out, whichever is first.
func handover(grp Group, g int, began time.Duration, ks []Kill, next string, at time.Duration) []string {
	over, why := began+time.Duration(grp.Grace)*time.Second, "its grace ran out"
	last, all := began, true
	for _, k := range ks {
		all = all && k.Returned
		if k.Returned {
			last = max(last, k.Back)
		}
	}
	if all && last < over {
		over, why = last, "its kills all returned"
	}
	switch {
	case at < over:
		return []string{fmt.Sprintf("%s at %v, before shutdown group %d was over (begun at %v, grace %d s: its kills had not all returned)", next, at, g, began, grp.Grace)}
	case at > over:
		return []string{fmt.Sprintf("%s at %v, but shutdown group %d was over at %v (begun at %v: %s)", next, at, g, over, began, why)}
	}
	return nil
}

// groupOf is the index of the last group whose priority is at most prio,
// 0 if there is none.
func groupOf(groups []Group, prio int32) int {
	g := 0
	for i, grp := range groups {
		if grp.Priority <= prio {
			g = i
		}
	}
	return g
}

// graceOf is min(the group's grace, the pod's spec grace).
func graceOf(g Group, p Pod) int64 {
	if p.SpecGrace != nil && *p.SpecGrace < g.Grace {
		return *p.SpecGrace
	}
	return g.Grace
}

// ShowGrace is a grace override for a message: its seconds, or "none".
func ShowGrace(p *int64) string {
	if p == nil {
		return "none"
	}
	return fmt.Sprint(*p)
}
