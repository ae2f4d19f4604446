package safety

import (
	"slices"

	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/oracle"
)

// sortedKnown returns the known UIDs sorted and without repeats, as the
// view promises them; a list that is not is sorted here (a copy), so the
// merge walk in release holds whatever the view.
func sortedKnown(known []string) []string {
	for i := 1; i < len(known); i++ {
		if known[i-1] >= known[i] {
			return slices.Compact(slices.Sorted(slices.Values(known)))
		}
	}
	return known
}

// has reports whether the sorted list holds s.
func has(sorted []string, s string) bool {
	_, ok := history.Search(sorted, s)
	return ok
}

// uidSet is SyncKnownPods' desired UIDs as a set: the call's list itself
// when it is sorted (the world's is), else a map.
type uidSet struct {
	sorted []string
	m      map[string]bool
}

// walk is s's membership for UIDs asked in ascending order.
func (s uidSet) walk() uidWalk {
	return uidWalk{m: s.m, sorted: history.Walk[string]{Sorted: s.sorted}}
}

// uidWalk reads a uidSet for UIDs asked in ascending order: a walk through
// the sorted list, one pass for all of them, or the map.
type uidWalk struct {
	m      map[string]bool
	sorted history.Walk[string]
}

// has reports whether the set holds uid; uid must not be smaller than the
// UID of the previous call.
func (w *uidWalk) has(uid string) bool {
	if w.m != nil {
		return w.m[uid]
	}
	return w.sorted.Has(uid)
}

// desiredSet returns the set of desired UIDs.
func (o *safetyOracle) desiredSet(desired []string) uidSet {
	if slices.IsSorted(desired) {
		return uidSet{sorted: desired}
	}
	m := make(map[string]bool, len(desired))
	for _, uid := range desired {
		m[uid] = true
	}
	return uidSet{m: m}
}

// answersReader reads v.Answers for UIDs asked in ascending order: a walk
// through a recorded probe (history.ProbeWalk), the view itself otherwise.
type answersReader struct {
	walk history.ProbeWalk
	v    safetyView // nil when walk reads a probe
}

func newAnswersReader(v safetyView) answersReader {
	if p, ok := v.(*history.Probe); ok {
		return answersReader{walk: history.ProbeWalk{Probe: p}}
	}
	return answersReader{v: v}
}

func (r *answersReader) answers(uid types.UID) oracle.Answers {
	if r.v != nil {
		return r.v.Answers(uid)
	}
	return r.walk.Answers(uid)
}

// mirrorReader reads v.MirrorTerminating for full names asked in ascending
// order: a walk through a recorded probe's Mirror (sorted by full name),
// the view itself otherwise.
type mirrorReader struct {
	probe *history.Probe
	next  int // Mirror entries before it hold smaller full names than any asked from now on
	v     safetyView
}

func newMirrorReader(v safetyView) mirrorReader {
	if p, ok := v.(*history.Probe); ok {
		return mirrorReader{probe: p}
	}
	return mirrorReader{v: v}
}

// terminating is MirrorTerminating(fullname); fullname must not be smaller
// than the previous call's.
func (r *mirrorReader) terminating(fullname string) bool {
	if r.probe == nil {
		return r.v.MirrorTerminating(fullname)
	}
	m := r.probe.Mirror
	for r.next < len(m) && m[r.next].FullName < fullname {
		r.next++
	}
	return r.next < len(m) && m[r.next].FullName == fullname && m[r.next].Terminating
}

// mayTerminate is false when v is a recorded probe in which
// IsPodForMirrorPodTerminatingByFullName answers false for every full
// name (so it does for every full name asked: mirrorReader), true
// otherwise.
func mayTerminate(v safetyView) bool {
	p, ok := v.(*history.Probe)
	if !ok {
		return true
	}
	for _, m := range p.Mirror {
		if m.Terminating {
			return true
		}
	}
	return false
}
