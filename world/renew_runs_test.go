package world

import (
	"fmt"
	"strings"
	"testing"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/sim"
)

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
