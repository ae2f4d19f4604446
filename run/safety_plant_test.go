package run

import (
	"slices"
	"testing"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/model/ops"
	"github.com/podsim/podsim/oracle"
	"github.com/podsim/podsim/oracle/safety"
	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/sim"
	"github.com/podsim/podsim/world"
)

// A planted fault corrupts what the oracle sees of a real run, the way a
// broken pod worker would show: an event dropped or changed, or the query
// answers bent. The oracle must notice it online.
type safetyPlant struct {
	name string
	inv  string
	// event rewrites one event (ok=false drops it); nil keeps all.
	event func(ev history.Event) (history.Event, bool)
	// answers bends the answers the view gives for uid; nil keeps them.
	answers func(uid string, a oracle.Answers) oracle.Answers
	mirror  func(fullname string, m bool) bool
}

// planted feeds the oracle the planted run: events rewritten or dropped,
// and the query answers recorded on each release of the pod lock bent.
type planted struct {
	oracle.View
	p safetyPlant
}

func (v planted) observe(o oracle.Oracle, ev history.Event) {
	if v.p.event != nil {
		var ok bool
		if ev, ok = v.p.event(ev); !ok {
			return
		}
	}
	if ev.Probe != nil && (v.p.answers != nil || v.p.mirror != nil) {
		ev.Probe = v.bend(ev.Probe)
	}
	o.Observe(v, &ev)
}

// bend returns a copy of probe with the plant's answers.
func (v planted) bend(probe *history.Probe) *history.Probe {
	bent := &history.Probe{PodsSynced: probe.PodsSynced, Pods: slices.Clone(probe.Pods), Mirror: slices.Clone(probe.Mirror)}
	for i, a := range bent.Pods {
		if v.p.answers != nil {
			bent.Pods[i].Answers = v.p.answers(string(a.UID), a.Answers)
		}
	}
	for i, m := range bent.Mirror {
		if v.p.mirror != nil {
			bent.Mirror[i].Terminating = v.p.mirror(m.FullName, m.Terminating)
		}
	}
	return bent
}

// dropInput drops the events whose input matches.
func dropInput(match func(ops.Input) bool) func(history.Event) (history.Event, bool) {
	return func(ev history.Event) (history.Event, bool) { return ev, !match(ev.Input) }
}

var safetyPlants = []safetyPlant{
	{name: "a failed callback never ends", inv: "S1", event: dropInput(func(in ops.Input) bool {
		e, ok := in.(ops.SyncEnd)
		return ok && e.Outcome != ops.OK
	})},
	{name: "cancellations never fire (G4)", inv: "S3", event: dropInput(func(in ops.Input) bool {
		_, ok := in.(ops.CancelFired)
		return ok
	})},
	{name: "acknowledged with the request", inv: "S4", answers: func(_ string, a oracle.Answers) oracle.Answers {
		a.ContainersBeTerminating = a.ContainersBeTerminating || a.TerminationRequested
		return a
	}},
	{name: "SyncTerminatingPod's success is lost", inv: "S5", event: dropInput(func(in ops.Input) bool {
		e, ok := in.(ops.SyncEnd)
		return ok && e.Fn == ops.SyncTerminatingPod && e.Outcome == ops.OK
	})},
	{name: "termination forgotten once finished", inv: "S8", answers: func(_ string, a oracle.Answers) oracle.Answers {
		if a.BeFinished {
			a.TerminationRequested = false
		}
		return a
	}},
	{name: "unstarted cleanup without acknowledgement (G3)", inv: "S9", answers: func(_ string, a oracle.Answers) oracle.Answers {
		if a.BeFinished {
			a.ContainersBeTerminating = false
		}
		return a
	}},
	{name: "mirror pods always terminating", inv: "S9", mirror: func(string, bool) bool { return true }},
	{name: "unknown pods could run after sync", inv: "S10", answers: func(_ string, a oracle.Answers) oracle.Answers {
		if !a.Known {
			a.CouldHaveRunning = true
		}
		return a
	}},
	{name: "grace lengthened", inv: "S11", event: func(ev history.Event) (history.Event, bool) {
		if b, ok := ev.Input.(ops.SyncBegin); ok && b.Fn == ops.SyncTerminatingPod {
			b.Grace += 100
			ev.Input = b
		}
		return ev, true
	}},
	{name: "stale pod versions", inv: "S12", event: func(ev history.Event) (history.Event, bool) {
		if b, ok := ev.Input.(ops.SyncBegin); ok && b.Version > 1 {
			b.Version--
			ev.Input = b
		}
		return ev, true
	}},
	{name: "completions never fire (G1, G2)", inv: "S14", event: dropInput(func(in ops.Input) bool {
		_, ok := in.(ops.CompletionFired)
		return ok
	})},
	{name: "every pod is static", inv: "S15", event: func(ev history.Event) (history.Event, bool) {
		if u, ok := ev.Input.(ops.UpdatePod); ok && !u.RuntimeOnly {
			u.Pod.Static = true
			ev.Input = u
		}
		return ev, true
	}},
	{name: "content always removable", inv: "S19", answers: func(_ string, a oracle.Answers) oracle.Answers {
		a.ContentBeRemoved = a.ContentBeRemoved || a.Known
		return a
	}},
}

// TestSafetyCatchesPlantedFaults: each planted fault is reported, under
// its invariant, within the first 200 swarm seeds.
func TestSafetyCatchesPlantedFaults(t *testing.T) {
	f := familyNamed(t, "swarm")
	for _, p := range safetyPlants {
		t.Run(p.name, func(t *testing.T) {
			for seed := uint64(0); seed < 200; seed++ {
				st := plan.SeedStreams(seed)
				w := world.NewWorld(f.Generate(st.Plan), st.Schedule, st.Faults, sim.RandomWalk{})
				o, v := safety.New(), planted{w.View(), p}
				w.Observe(func(ev history.Event) { v.observe(o, ev) })
				if err := w.Run(); err != nil {
					t.Fatalf("seed %d: %v", seed, err)
				}
				if vs := o.Finish(v, nil); slices.ContainsFunc(vs, func(v history.Violation) bool { return v.Invariant == p.inv }) {
					return
				}
			}
			t.Errorf("got no %s violation in 200 planted runs, want one", p.inv)
		})
	}
}
