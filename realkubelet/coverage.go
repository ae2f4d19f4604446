package realkubelet

import (
	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/oracle"
	"github.com/podsim/podsim/oracle/coverage"
	"github.com/podsim/podsim/oracle/nearmiss"
)

// The run's state coverage: the same tracker as the simulated kubelet
// world's (package oracle/coverage), fed every event the driver records
// and, after every step once the workers are at rest, the committed query
// answers (coverage.Tracker.AtRest). What the real kubelet shows of each
// tuple field:
//
//   - work, pending, kill, call: exact. The driver records every
//     UpdatePod it makes and every callback's begin and end at its gate;
//     a callback's cancellation ("+cancel") and a killPodNow's wait are
//     polled after each step, as the run's history records them.
//   - state: sampled once a step, after the workers came to rest (the
//     driver cannot see their critical sections, tape/), where the
//     simulated world reads it at every release of the pod lock. A state
//     a worker entered and left within one step is not seen.
//     Before the first SyncKnownPods the public queries cannot tell a
//     record not yet asked to terminate from an unknown UID (view.go's
//     workersView), so such a pod's state reads "-" (unknown) where the
//     world, which sees its record list, says P or S.
//   - static: from the pods' config-source annotation, as in the world.
//   - world: the shutdown manager's begin, end and cancellation notes and
//     the kubelet restarts the driver records; with the shutdown
//     component off a run stays "run".
//
// So the real kubelet's tuples are the simulated world's vocabulary, and
// a tuple reached on both means the same situation; the real target
// reaches fewer intermediate states per run.

// coverageObserver hands every recorded event to the tracker; it judges
// nothing.
type coverageObserver struct{ t *coverage.Tracker }

func (c coverageObserver) Observe(v oracle.View, ev *history.Event) { c.t.Observe(v, ev) }

func (coverageObserver) Finish(oracle.View, error) []history.Violation { return nil }

// nearMissObserver hands every recorded event to the near-miss tracker
// (RunOptions.NearMisses), which tells the coverage tracker its keys; it
// judges nothing. The real kubelet's history has no lock releases (tape/),
// so a query in transit reads as if the worker never released the pod
// lock since its callback ended (stage "ended").
type nearMissObserver struct{ t *nearmiss.Tracker }

func (n nearMissObserver) Observe(v oracle.View, ev *history.Event) { n.t.Observe(v, ev) }

func (nearMissObserver) Finish(oracle.View, error) []history.Violation { return nil }

// coverageAtRest reads the committed answers into the tracker: called
// after every recorded step, with the workers at rest.
func (d *Driver) coverageAtRest() {
	if d.cov != nil && d.h.On {
		d.cov.AtRest(d.Probe())
	}
}

// coverage is what the tracker recorded (nothing with RunOptions.noCoverage).
func (d *Driver) coverage() coverage.Coverage {
	if d.cov == nil {
		return coverage.Coverage{}
	}
	return d.cov.Coverage()
}
