package world

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/sim"
)

// kept are the fields Renew keeps from the last run (what it builds again
// in place): the pod objects' boxes, their label and annotation maps
// (history.PodObjects.Reuse keeps those no run wrote) and the probes' slabs,
// and the flags saying so, the pod workers' names (workers.Names: the same
// strings), the slabs of the world's own values (World.kept) and of its
// worker goroutines (workerset.Set's runs).
var kept = map[string]bool{"boxes": true, "freeArrays": true, "used": true, "reusing": true, "workerNames": true,
	"labels": true, "api": true, "file": true, "kept": true, "runs": true}

// shallowDiff says where a and b, two worlds' values, differ in the world's
// own memory: every field of every struct and array in it, a map, slice,
// pointer, interface or function only by being set, a map or a slice
// only by its length (an empty one the same whether nil or kept), never followed (what they point to is built anew by
// NewWorld and Renew alike), the kept fields skipped; "" when nowhere.
func shallowDiff(path string, a, b reflect.Value) string {
	switch a.Kind() {
	case reflect.Struct:
		for i := range a.NumField() {
			if name := a.Type().Field(i).Name; !kept[name] {
				if d := shallowDiff(path+"."+name, a.Field(i), b.Field(i)); d != "" {
					return d
				}
			}
		}
		return ""
	case reflect.Array:
		for i := range a.Len() {
			if d := shallowDiff(fmt.Sprintf("%s[%d]", path, i), a.Index(i), b.Index(i)); d != "" {
				return d
			}
		}
		return ""
	case reflect.Map, reflect.Slice:
		if a.Len() != b.Len() {
			return fmt.Sprintf("%s: length %d, fresh %d", path, a.Len(), b.Len())
		}
		return ""
	case reflect.Pointer, reflect.Interface, reflect.Func, reflect.Chan, reflect.UnsafePointer:
		if a.IsNil() != b.IsNil() {
			return fmt.Sprintf("%s: set %v, fresh set %v", path, !a.IsNil(), !b.IsNil())
		}
		return ""
	}
	if !a.Equal(b) {
		return fmt.Sprintf("%s: %v, fresh %v", path, a, b)
	}
	return ""
}

// renewDiff runs seed 1 of f on a world, renews it for seed 2 and says
// where it differs from a new world of seed 2 (shallowDiff).
func renewDiff(f plan.Family, renew func(w *World, p plan.Plan, st plan.Streams) *World) string {
	st := plan.SeedStreams(1)
	w := NewWorld(f.Generate(st.Plan), st.Schedule, st.Faults, sim.RandomWalk{})
	w.Observe(func(history.Event) {}) // an observer: the world probes
	_ = w.Run()
	st = plan.SeedStreams(2)
	p := f.Generate(st.Plan)
	renewed := renew(w, p, st)
	defer renewed.S.Close()
	fresh := NewWorld(p, plan.SeedStreams(2).Schedule, plan.SeedStreams(2).Faults, sim.RandomWalk{})
	defer fresh.S.Close()
	return shallowDiff(f.Name, reflect.ValueOf(renewed).Elem(), reflect.ValueOf(fresh).Elem())
}

// TestRenewIsNewWorld: a world renewed after a run of every kubelet
// family holds, in its own memory, what a new world holds (run.Lane's
// TestLaneSeedsAreFreshSeeds shows the runs alike). It fails when a renew
// keeps the probes' memory whole, or the pod objects' builder whole.
func TestRenewIsNewWorld(t *testing.T) {
	for _, f := range plan.KubeletFamilies() {
		if d := renewDiff(f, func(w *World, p plan.Plan, st plan.Streams) *World {
			return w.Renew(p, st.Schedule, st.Faults, sim.RandomWalk{})
		}); d != "" {
			t.Error(d)
		}
	}
	f := plan.KubeletFamilies()[0]
	broken := map[string]func(w *World, p plan.Plan, st plan.Streams) *World{
		"the run's probe memory kept": func(w *World, p plan.Plan, st plan.Streams) *World {
			probes := w.probes
			w.Renew(p, st.Schedule, st.Faults, sim.RandomWalk{})
			w.probes = probes
			return w
		},
		"the pod objects' builder kept whole": func(w *World, p plan.Plan, st plan.Streams) *World {
			objects := w.podObjects
			w.Renew(p, st.Schedule, st.Faults, sim.RandomWalk{})
			w.podObjects = objects
			return w
		},
		"not renewed": func(w *World, p plan.Plan, st plan.Streams) *World { return w },
	}
	for name, renew := range broken {
		if d := renewDiff(f, renew); d == "" {
			t.Errorf("%s: looks new", name)
		}
	}
}

// events runs w and writes out every event it sends, with its probe's
// answers (not the probe's address).
func events(w *World) string {
	var b strings.Builder
	w.Observe(func(ev history.Event) {
		fmt.Fprintf(&b, "%d %d %d %v %s %+v %+v %+v", ev.Kind, ev.Seq, ev.ID, ev.At, ev.Goroutine, ev.Input, ev.Output, ev.Note)
		if ev.Probe != nil {
			fmt.Fprintf(&b, " %+v", *ev.Probe)
		}
		b.WriteByte('\n')
	})
	if err := w.Run(); err != nil {
		fmt.Fprintf(&b, "error %v\n", err)
	}
	return b.String()
}

// TestRenewRunsAsFresh: a world renewed after a run of another seed (and
// of another family) sends, seed for seed, the events a new world sends,
// for every kubelet family: nothing the renewed world keeps (its slabs,
// kept lists, maps and runtime) carries a seed's state into the next. It
// fails when the renewed fake runtime keeps its running pods, which
// TestRenewIsNewWorld (the world's own memory only) cannot see.
func TestRenewRunsAsFresh(t *testing.T) {
	families := plan.KubeletFamilies()
	var w *World
	for i, f := range families {
		for seed := uint64(1); seed <= 3; seed++ {
			st := plan.SeedStreams(seed)
			p := f.Generate(st.Plan)
			fresh := events(NewWorld(p, st.Schedule, st.Faults, sim.RandomWalk{}))
			st = plan.SeedStreams(seed)
			if w == nil {
				w = NewWorld(p, st.Schedule, st.Faults, sim.RandomWalk{})
			} else {
				w.Renew(p, st.Schedule, st.Faults, sim.RandomWalk{})
			}
			if renewed := events(w); renewed != fresh {
				t.Errorf("%s seed %d, renewed after %d runs: events differ from a new world's", f.Name, seed, i*3+int(seed)-1)
			}
		}
	}
}
