// Package shapes classifies the UpdatePods the simulated kubelet (package
// world) makes by input shape (issue 17): every call is sorted along the
// dimensions the pod-worker API admits, so a sweep can report which shapes
// each family draws. A Set is one run's record; it knows no world, only
// the options the pod workers were given.
package shapes

import (
	mathbits "math/bits"
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

// A shape is one of Dimensions' values, by its place in the flat list all.
type shape uint8

var (
	all     = slices.Concat(Dimensions...) // every shape, dimension by dimension
	shapeOf = func() map[string]shape {    // read only after init
		m := map[string]shape{}
		for i, sh := range all {
			m[sh] = shape(i)
		}
		return m
	}()
)

// of is the shape named name (a value of Dimensions).
func of(name string) shape {
	sh, ok := shapeOf[name]
	if !ok {
		panic("shapes: no dimension lists " + name)
	}
	return sh
}

// Set is the input shapes one run drew; the zero value is empty.
type Set struct {
	drawn bits // one bit per shape (all), set once drawn
	// created are the UIDs created so far (a later create reuses the UID):
	// a run creates a few, found by a scan; first is created's first array.
	created []string
	first   [4]string
}

// bits is a set of shapes: bit i is shape i of all.
type bits uint64

func (b *bits) add(sh shape) { *b |= 1 << sh }

// typeShapes are an update type's shapes: type=, kill-on= and type×target=
// by target (targetShapes' order), looked up once (Note builds no string),
// by update type.
type typeShapes struct {
	typ, killOn shape
	typeTarget  [3]shape
}

var targetShapes = [3]string{"target=pod", "target=running-pod", "target=both"}

var updateTypeShapes = func() (m [workers.SyncPodKill + 1]typeShapes) {
	for t, name := range map[workers.UpdateType]string{workers.SyncPodCreate: "create", workers.SyncPodUpdate: "update",
		workers.SyncPodSync: "sync", workers.SyncPodKill: "kill"} {
		ts := typeShapes{typ: of("type=" + name), killOn: of("kill-on=" + name)}
		for i, g := range targetShapes {
			ts.typeTarget[i] = of("type×target=" + name + "/" + strings.TrimPrefix(g, "target="))
		}
		m[t] = ts
	}
	return
}()

// The shapes Note draws by name, looked up once.
var (
	target              = [3]shape{of(targetShapes[0]), of(targetShapes[1]), of(targetShapes[2])}
	killOnRuntimeUpdate = of("kill-on=update/running-pod")
	phaseTerminal       = of("phase=terminal")
	phaseRunning        = of("phase=running")
	phasePending        = of("phase=pending")
	staticYes, staticNo = of("static=yes"), of("static=no")
	uidReused, uidFresh = of("uid=reused"), of("uid=fresh")
	killNone, graceNil  = of("kill=none"), of("grace=nil")
	killGrace           = of("kill=grace")
	killCompletion      = of("kill=completion")
	killEvict           = of("kill=evict")
	grace0              = of("grace=0")
	graceShorter        = of("grace=shorter")
	graceEqual          = of("grace=equal")
	graceLonger         = of("grace=longer")
)

// Note records the shape of one UpdatePod; static says whether its pod
// (if any) is from a non-API source (the model's view of the call has read
// it already: history.ModelPod).
func (s *Set) Note(o workers.UpdatePodOptions, static bool) {
	ts, t := updateTypeShapes[o.UpdateType], 1 // running-pod
	switch {
	case o.Pod != nil && o.RunningPod != nil:
		t = 2
	case o.Pod != nil:
		t = 0
	}
	b := &s.drawn
	b.add(ts.typ)
	b.add(target[t])
	b.add(ts.typeTarget[t])
	b.addKill(o)
	if o.KillPodOptions != nil && o.KillPodOptions.CompletedCh != nil {
		b.add(ts.killOn)
		if t == 1 && (o.UpdateType == workers.SyncPodUpdate || o.UpdateType == workers.SyncPodSync) {
			b.add(killOnRuntimeUpdate)
		}
	}
	if o.Pod != nil {
		switch o.Pod.Status.Phase {
		case v1.PodSucceeded, v1.PodFailed:
			b.add(phaseTerminal)
		case v1.PodRunning:
			b.add(phaseRunning)
		default:
			b.add(phasePending)
		}
		if static {
			b.add(staticYes)
		} else {
			b.add(staticNo)
		}
		if o.UpdateType == workers.SyncPodCreate {
			if slices.Contains(s.created, string(o.Pod.UID)) {
				b.add(uidReused)
			} else {
				if s.created == nil {
					s.created = s.first[:0] // in the Set's memory: no allocation
				}
				s.created = append(s.created, string(o.Pod.UID))
				b.add(uidFresh)
			}
		}
	}
}

// addKill adds the kill options and the grace override against the spec
// grace (0 for a runtime-only pod).
func (b *bits) addKill(o workers.UpdatePodOptions) {
	ko := o.KillPodOptions
	if ko == nil || (ko.PodTerminationGracePeriodSecondsOverride == nil && ko.CompletedCh == nil && !ko.Evict) {
		b.add(killNone)
		b.add(graceNil)
		return
	}
	g := ko.PodTerminationGracePeriodSecondsOverride
	if g != nil {
		b.add(killGrace)
	}
	if ko.CompletedCh != nil {
		b.add(killCompletion)
	}
	if ko.Evict {
		b.add(killEvict)
	}
	var spec int64
	if o.Pod != nil && o.Pod.Spec.TerminationGracePeriodSeconds != nil {
		spec = *o.Pod.Spec.TerminationGracePeriodSeconds
	}
	switch {
	case g == nil:
		b.add(graceNil)
	case *g == 0:
		b.add(grace0)
	case *g < spec:
		b.add(graceShorter)
	case *g == spec:
		b.add(graceEqual)
	default:
		b.add(graceLonger)
	}
}

// Add records shapes drawn; each must be a value of Dimensions.
func (s *Set) Add(shapes ...string) {
	for _, sh := range shapes {
		s.drawn.add(of(sh))
	}
}

// Sorted lists the shapes drawn, sorted.
func (s *Set) Sorted() []string {
	out := make([]string, 0, mathbits.OnesCount64(uint64(s.drawn)))
	for i, sh := range all {
		if s.drawn&(1<<i) != 0 {
			out = append(out, sh)
		}
	}
	slices.Sort(out)
	return out
}
