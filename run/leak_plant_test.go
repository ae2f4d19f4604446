package run

import (
	"strings"
	"testing"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/oracle/liveness"
	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/workers"
	"github.com/podsim/podsim/world"
)

// lostClose is a runtime whose wake-up signal of one pod's worker loses its
// Close: a kubelet whose cleanupPodUpdates forgets to close the channel,
// planted outside the correct pod workers.
type lostClose struct {
	workers.Runtime
	signal string
}

func (r lostClose) NewSignal(name string) workers.Signal {
	s := r.Runtime.NewSignal(name)
	if name == r.signal {
		return closeless{s}
	}
	return s
}

type closeless struct{ workers.Signal }

func (closeless) Close() {}

// leakRun runs pl with the whole-run leak oracle (L10) only, the pod
// workers over the plain world or over a runtime that loses the Close of
// the named signal ("" for none).
func leakRun(t *testing.T, pl plan.Plan, signal string) []history.Violation {
	t.Helper()
	w := lvWorld(pl, nil)
	if signal != "" {
		w.Wrap(world.Wrappers{Runtime: func(_ *world.World, inner workers.Runtime) workers.Runtime {
			return lostClose{Runtime: inner, signal: signal}
		}})
	}
	o, view := liveness.NewWorkerLeaks(), w.View()
	w.Observe(func(ev history.Event) { o.Observe(view, &ev) })
	err := w.Run()
	if err != nil {
		t.Fatalf("run: got error %v, want none\n%v", err, pl)
	}
	return o.Finish(view, err)
}

// TestPlantedLeakCaughtByL10: end to end through a world run, a worker
// whose wake-up signal never closes outlives the workers' Shutdown, and
// L10 names it; the same plan on the plain world, and with another pod's
// signal planted, ends every worker and L10 stays silent.
func TestPlantedLeakCaughtByL10(t *testing.T) {
	pl := lvPlan(lvAct(0, plan.Create, "a"))
	if v := leakRun(t, pl, ""); len(v) != 0 {
		t.Fatalf("plain world: got %v, want no leak", v)
	}
	if v := leakRun(t, pl, "updates/b"); len(v) != 0 {
		t.Fatalf("a pod the plan never creates planted: got %v, want no leak", v)
	}
	v := leakRun(t, pl, "updates/a")
	if len(v) != 1 || v[0].Oracle != "liveness" || v[0].Invariant != "L10" || !strings.Contains(v[0].Message, "worker/a") ||
		!strings.Contains(v[0].Message, "updates/a") {
		t.Fatalf("lost Close planted: got %v, want one L10 violation naming worker/a and its signal", v)
	}
}
