package run

import (
	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/oracle"
	"github.com/podsim/podsim/oracle/nearmiss"
	"github.com/podsim/podsim/oracle/vk"
	"github.com/podsim/podsim/oracle/vkcoverage"
	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/sim"
	"github.com/podsim/podsim/vkworld"
	"github.com/podsim/podsim/world"
)

// The virtual-kubelet pod controller's plans (Plan.VK) run on the
// simulated VK world, judged by the VK oracle alone.

// runVK runs plan p of family on the VK world over the given sources.
func runVK(family string, seed uint64, p plan.Plan, schedule, faults sim.Source, strategy sim.Strategy, opts CheckOptions,
	extra []oracle.Oracle) (Result, *vkworld.World) {
	w := vkworld.NewWorld(p, schedule, faults, strategy)
	return runVKWorld(family, seed, w, opts, extra), w
}

// runVKWorld is runVK on a world already made.
func runVKWorld(family string, seed uint64, w *vkworld.World, opts CheckOptions, extra []oracle.Oracle) Result {
	if err := reintroduceVK(w, opts.Mutant); err != nil {
		return Result{Family: family, Seed: seed, Err: err}
	}
	return judgeVK(family, seed, w, opts, extra)
}

// judgeVK runs w with the VK oracle, the VK coverage tracker and the extra
// oracles.
func judgeVK(family string, seed uint64, w *vkworld.World, opts CheckOptions, extra []oracle.Oracle) Result {
	if opts.FaultPoints {
		w.FaultPointsOn()
	}
	view := w.View()
	oracles := append([]oracle.Oracle{vk.NewWithTiming(vkTiming(w.Plan()))}, extra...)
	var cov *vkcoverage.Tracker // nil: a Lean run reads no tuples
	if opts.tracksCoverage() {
		cov = vkcoverage.New()
	}
	var near *nearmiss.VKTracker
	if opts.NearMisses {
		near = nearmiss.NewVK(cov)
	}
	var out slot
	w.Observe(func(ev history.Event) {
		p := out.take()
		*p = ev
		if cov != nil {
			cov.Observe(p)
		}
		if near != nil {
			near.Observe(p)
		}
		for _, o := range oracles {
			o.Observe(view, p)
		}
		if opts.audit {
			audit(p, ev)
		}
		out.give(p)
	})
	err := w.Run()
	marks := history.NewMarker()
	marks.Merge(w.Marks())
	r := Result{Family: family, Mutant: opts.Mutant, Seed: seed, Err: err, Steps: w.S.Steps(), Elapsed: w.S.Elapsed(),
		Marks: marks.Sorted(), FaultPointsArmed: opts.FaultPoints}
	if cov != nil {
		r.Coverage = cov.Coverage()
	}
	for _, p := range w.FaultPointsDrawn() {
		r.FaultPoints = append(r.FaultPoints, p.String())
	}
	for _, o := range oracles {
		r.Violations = append(r.Violations, o.Finish(view, err)...)
	}
	if r.Err == nil {
		// A crash of the controller's process is judged by its consequence
		// (the oracle above); the crash itself is the secondary signal.
		r.Err = w.Crash()
	}
	hashTrace(&r, w.S, opts)
	return r
}

// reintroduceVK switches the VK mutant called mutant on in w.
func reintroduceVK(w *vkworld.World, mutant string) error {
	if err := mutantFor(mutant, true); err != nil {
		return err
	}
	return w.Reintroduce(mutant)
}

// reintroduce switches the kubelet mutant called mutant on in w.
func reintroduce(w *world.World, mutant string) error {
	if err := mutantFor(mutant, false); err != nil {
		return err
	}
	return w.Reintroduce(mutant)
}

// vkTiming is the simulated VK controller's stated timing, for VK8: its
// queues' backoff, and the longest a notification of a pod not yet known
// can take to queue its status (the callback's wait after the informer's
// sync, which takes at most the plan's informer lag).
func vkTiming(p plan.Plan) vk.Timing {
	return vk.Timing{BaseBackoff: vkworld.BaseBackoff, MaxBackoff: vkworld.MaxBackoff,
		NotifyWindow: vkworld.NotifyWait + p.VK.InformerLag}
}
