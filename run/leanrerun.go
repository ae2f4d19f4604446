package run

import (
	"errors"
	"fmt"
	"reflect"
	"slices"

	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/sim"
)

// A Lean run (CheckOptions.Lean) of the correct code records no trace:
// its passing seeds, nearly all of them, never read one. A failing seed needs its trace hash (reports
// print it) and, for RunSeedTrace, its trace: runSeedOn runs it again,
// traced. A run is a function of its seed, plan and schedule, so the
// re-run fails the same way; rerunTraced checks that it does.

// untracedRun reports whether a seed's run under opts records no trace:
// a Lean run of the correct code. A Lean run of a mutant records its
// trace: its seeds are meant to fail (13 % of the gate's mutant seeds
// do), and a failing untraced seed costs a second run.
func untracedRun(opts CheckOptions) bool {
	return opts.Lean && (opts.Mutant == "" || opts.untraceMutant)
}

// rerunTraced runs a failing Lean seed again with its trace recorded and
// returns the re-run's result, scheduler and plan: the result a traced
// Lean run gives. first is the untraced run's result and s its scheduler,
// recycled here. If the re-run's verdict differs from first's, the run is
// not deterministic (or a real-time bound, the hot-loop watchdog's, fired
// in one run only, on a starved machine): the result returned is the
// re-run's with an error naming both verdicts, so the seed fails, says
// why, and a sweep goes on with its finished work kept (a panic would end
// it).
func rerunTraced(l *Lane, f plan.Family, strategy sim.Strategy, opts CheckOptions, first Result, s *sim.Scheduler) (Result, *sim.Scheduler, plan.Plan) {
	s.Recycle()
	r, s, p := runSeedOnce(l, f, first.Seed, strategy, opts, true)
	if perturbRerun != nil {
		perturbRerun(&r)
	}
	if d := rerunDiffers(first, r); d != "" {
		r.Err = fmt.Errorf("run: nondeterminism: %s seed %d failed untraced and its traced re-run differs: %s (the re-run's error: %w)",
			f.Name, first.Seed, d, r.Err)
	}
	return r, s, p
}

// perturbRerun, set by tests only, changes the traced re-run's result:
// the seed must then fail naming the difference (TestRerunThatDiffersFails).
var perturbRerun func(*Result)

// rerunDiffers says how again, a failing seed's traced re-run, differs
// from first, its untraced run, in what the two must share: the verdict
// (error and violations), steps, virtual time, marks, fault points and
// coverage; "" if in nothing.
func rerunDiffers(first, again Result) string {
	switch {
	case errorText(first.Err) != errorText(again.Err):
		return fmt.Sprintf("error %v, re-run %v", first.Err, again.Err)
	case !reflect.DeepEqual(first.Violations, again.Violations):
		return fmt.Sprintf("violations %v, re-run %v", first.Violations, again.Violations)
	case first.Steps != again.Steps || first.Elapsed != again.Elapsed:
		return fmt.Sprintf("%d steps at %v, re-run %d at %v", first.Steps, first.Elapsed, again.Steps, again.Elapsed)
	case !slices.Equal(first.Marks, again.Marks) || !slices.Equal(first.FaultPoints, again.FaultPoints):
		return fmt.Sprintf("marks %v and fault points %v, re-run %v and %v", first.Marks, first.FaultPoints, again.Marks, again.FaultPoints)
	case !reflect.DeepEqual(first.Coverage, again.Coverage):
		return "coverage differs"
	}
	return ""
}

// errorText is err's text, a hot loop's without its goroutine's stack
// (which holds addresses, different from run to run): its goroutine and
// handoffs say where the run stuck.
func errorText(err error) string {
	var hl *sim.HotLoopError
	if errors.As(err, &hl) {
		return fmt.Sprintf("hot loop of %s after %d handoffs", hl.Goroutine, hl.Handoffs)
	}
	return fmt.Sprint(err)
}
