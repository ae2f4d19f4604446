// Package shapes classifies the UpdatePods the simulated kubelet (package
// world) makes by input shape (issue 17): every call is sorted along the
// dimensions the pod-worker API admits, so a sweep can report which shapes
// each family draws. A Set is one run's record; it knows no world, only
// the options the pod workers were given.
package shapes

import (
	"slices"
	"strings"

	v1 "k8s.io/api/core/v1"

	"github.com/podsim/podsim/workers"
)

// The dimensions an UpdatePod is classified along, one value per dimension,
// "dimension=value"; the kill options list each one set (none, grace,
// completion, evict).
//
//	type     create, update, sync, kill
//	target   pod, running-pod (RunningPod only), both
//	kill     none, grace, completion, evict
//	grace    nil (no override), 0, shorter / equal / longer than the spec grace
//	phase    pending, running, terminal (the pod's status phase)
//	static   yes, no
//	uid      fresh, reused (a create for a UID created before in this run)
//	query    any (a plan's Query: every query method, at that moment)
//	type×target  each pair of the two, e.g. "type×target=sync/running-pod"
//	kill-on  the update type of an update that carries kill options with a
//	         completion Event (a kill's, or api-shapes' create, update or
//	         sync with Action.KillOpts); "kill-on=update/running-pod" is a
//	         runtime-only non-kill update with them (dropped, its completion
//	         settled at once or when a termination in progress ends)

// Dimensions lists every dimension's values, in the order above.
var Dimensions = [][]string{
	{"type=create", "type=update", "type=sync", "type=kill"},
	{"target=pod", "target=running-pod", "target=both"},
	{"kill=none", "kill=grace", "kill=completion", "kill=evict"},
	{"grace=nil", "grace=0", "grace=shorter", "grace=equal", "grace=longer"},
	{"phase=pending", "phase=running", "phase=terminal"},
	{"static=yes", "static=no"},
	{"uid=fresh", "uid=reused"},
	{Query},
	typeTargetShapes(),
	{"kill-on=create", "kill-on=update", "kill-on=sync", "kill-on=kill", "kill-on=update/running-pod"},
}

func typeTargetShapes() []string {
	var out []string
	for _, t := range []string{"create", "update", "sync", "kill"} {
		for _, g := range []string{"pod", "running-pod", "both"} {
			out = append(out, "type×target="+t+"/"+g)
		}
	}
	return out
}

// Query is the shape of a plan's Query: every query method, at that moment.
const Query = "query=any"

// Set is the input shapes one run drew; the zero value is empty.
type Set struct {
	drawn map[string]bool
	// created are the UIDs created so far (a later create reuses the UID).
	created map[string]bool
}

// typeShapes are an update type's shapes: type=, kill-on= and type×target=
// by target (targetShapes' order), built once (Note builds no string).
type typeShapes struct {
	typ, killOn string
	typeTarget  [3]string
}

var targetShapes = [3]string{"target=pod", "target=running-pod", "target=both"}

var updateTypeShapes = func() map[workers.UpdateType]typeShapes {
	m := map[workers.UpdateType]typeShapes{}
	for t, name := range map[workers.UpdateType]string{workers.SyncPodCreate: "create", workers.SyncPodUpdate: "update",
		workers.SyncPodSync: "sync", workers.SyncPodKill: "kill"} {
		ts := typeShapes{typ: "type=" + name, killOn: "kill-on=" + name}
		for i, g := range targetShapes {
			ts.typeTarget[i] = "type×target=" + name + "/" + strings.TrimPrefix(g, "target=")
		}
		m[t] = ts
	}
	return m
}()

// Note records the shape of one UpdatePod.
func (s *Set) Note(o workers.UpdatePodOptions) {
	ts, target := updateTypeShapes[o.UpdateType], 1 // running-pod
	switch {
	case o.Pod != nil && o.RunningPod != nil:
		target = 2
	case o.Pod != nil:
		target = 0
	}
	out := make([]string, 0, 16) // at most 12
	out = append(out, ts.typ, targetShapes[target], ts.typeTarget[target])
	out = append(out, killShapes(o)...)
	if o.KillPodOptions != nil && o.KillPodOptions.CompletedCh != nil {
		out = append(out, ts.killOn)
		if target == 1 && (o.UpdateType == workers.SyncPodUpdate || o.UpdateType == workers.SyncPodSync) {
			out = append(out, "kill-on=update/running-pod")
		}
	}
	if o.Pod != nil {
		switch o.Pod.Status.Phase {
		case v1.PodSucceeded, v1.PodFailed:
			out = append(out, "phase=terminal")
		case v1.PodRunning:
			out = append(out, "phase=running")
		default:
			out = append(out, "phase=pending")
		}
		if o.Pod.Annotations[workers.ConfigSourceAnnotationKey] != workers.ApiserverSource {
			out = append(out, "static=yes")
		} else {
			out = append(out, "static=no")
		}
		if o.UpdateType == workers.SyncPodCreate {
			if s.created[string(o.Pod.UID)] {
				out = append(out, "uid=reused")
			} else {
				out = append(out, "uid=fresh")
			}
			if s.created == nil {
				s.created = map[string]bool{}
			}
			s.created[string(o.Pod.UID)] = true
		}
	}
	s.Add(out...)
}

// noKillShapes are killShapes of an update without kill options (read only).
var noKillShapes = []string{"kill=none", "grace=nil"}

// killShapes are the kill options and the grace override against the
// spec grace (0 for a runtime-only pod).
func killShapes(o workers.UpdatePodOptions) []string {
	ko := o.KillPodOptions
	if ko == nil || (ko.PodTerminationGracePeriodSecondsOverride == nil && ko.CompletedCh == nil && !ko.Evict) {
		return noKillShapes
	}
	out := make([]string, 0, 4)
	g := ko.PodTerminationGracePeriodSecondsOverride
	if g != nil {
		out = append(out, "kill=grace")
	}
	if ko.CompletedCh != nil {
		out = append(out, "kill=completion")
	}
	if ko.Evict {
		out = append(out, "kill=evict")
	}
	var spec int64
	if o.Pod != nil && o.Pod.Spec.TerminationGracePeriodSeconds != nil {
		spec = *o.Pod.Spec.TerminationGracePeriodSeconds
	}
	switch {
	case g == nil:
		out = append(out, "grace=nil")
	case *g == 0:
		out = append(out, "grace=0")
	case *g < spec:
		out = append(out, "grace=shorter")
	case *g == spec:
		out = append(out, "grace=equal")
	default:
		out = append(out, "grace=longer")
	}
	return out
}

// Add records shapes drawn.
func (s *Set) Add(shapes ...string) {
	if s.drawn == nil {
		s.drawn = map[string]bool{}
	}
	for _, sh := range shapes {
		s.drawn[sh] = true
	}
}

// Sorted lists the shapes drawn, sorted.
func (s *Set) Sorted() []string {
	out := make([]string, 0, len(s.drawn))
	for sh := range s.drawn {
		out = append(out, sh)
	}
	slices.Sort(out)
	return out
}
