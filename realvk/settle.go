package realvk

import (
	"strings"
	"testing/synctest"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/realvk/script"
)

// fallible: the call is the provider's or the API server's, and can fail
// (the informer's list is not: see chooseOutcome).
func fallible(label string) bool {
	return (strings.Contains(label, "/provider.") || strings.Contains(label, "/api.")) &&
		!strings.Contains(label, "/api.List/")
}

// settleRounds bounds the settle phase (each idle round sleeps a second:
// enough for the longest deletion grace a plan uses, 30 s, and the
// controller's back-off to retry).
const settleRounds = 90

// Settle is the liveness phase: the controller runs (started again if
// the plan left it stopped), every call succeeds, every event and
// notification is delivered, and time passes, until the world is quiet
// (nothing parked, pending or queued) or the rounds run out.
func (d *Driver) Settle() {
	w := d.W
	if !w.running && !d.restarting {
		for i := 0; i < 50 && !w.doneClosed(); i++ {
			d.releaseAll()
		}
		d.Apply(script.Move{Kind: script.MoveAction, Action: plan.Action{Kind: plan.VKStart, Grace: -1}})
	}
	for range settleRounds {
		d.releaseAll()
		if d.queued() == 0 {
			return
		}
		d.Apply(script.Move{Kind: script.MoveSleep})
	}
}

// releaseAll applies every move the controller's side offers, successful,
// until none is left (bounded).
func (d *Driver) releaseAll() {
	for range 500 {
		opts := d.options()
		if len(opts) == 0 {
			return
		}
		d.Apply(opts[0]) // Outcome zero: OK
	}
}

// queued is how many keys the running controller's queues hold; it
// records the status queue's share for the classifier (VJ).
func (d *Driver) queued() int {
	pc := d.W.pc
	status, other := 0, 0
	if pc != nil && d.W.running {
		status = pc.SyncPodStatusFromProviderQueueLen()
		other = pc.SyncPodsFromKubernetesQueueLen() + pc.DeletePodsFromKubernetesQueueLen()
	}
	d.W.mu.Lock()
	d.W.ev.StatusQueueLeft, d.W.ev.OtherQueuesLeft = status, other
	d.W.mu.Unlock()
	return status + other
}

// Shutdown stops the controller cleanly and checks that Run returned
// without an error: Done closes once every parked call returned.
func (d *Driver) Shutdown() {
	w := d.W
	if w.running {
		w.stop()
		// The cancel wakes the controller's goroutines: let them run to
		// their gates or their end before Done is looked at (without the
		// wait, whether Done closed before the first check was the Go
		// scheduler's choice, and so was the number of sleeps below).
		synctest.Wait()
	}
	for i := 0; i < 50 && !w.doneClosed(); i++ {
		d.releaseAll()
		d.Apply(script.Move{Kind: script.MoveSleep})
	}
	if !w.doneClosed() {
		d.report("liveness", "Done did not close after the context was cancelled")
		w.gates.Kill(w.gen) // let the bubble end
		return
	}
	w.pollLife()
	// Notification goroutines still polling end with the context; let
	// their timers run out.
	for range 5 {
		d.Apply(script.Move{Kind: script.MoveSleep})
	}
}

// Finish ends a run: settle, stop, record the final state, and take the
// shared VK oracle's verdict.
func (d *Driver) Finish(family string, seed uint64) Result {
	d.planSteps = len(d.Moves)
	d.Settle()
	d.checkNotified()
	queued := d.queued()
	d.Shutdown()
	d.W.emit(history.VKSettled{Final: d.finalState(queued)})
	d.afterStep()
	d.snapshotEnd()
	d.verdict()
	return Result{Family: family, Seed: seed, Moves: d.Moves[:d.planSteps], Findings: d.findings,
		TraceSHA: d.TraceSHA(), Trace: d.trace, Coverage: d.tape.cov.Coverage()}
}

// RunPlan runs a VK plan with a seed's streams; inside a bubble.
func RunPlan(family string, seed uint64, p plan.Plan, st plan.Streams) Result {
	return runPlan(family, seed, p, st, false)
}

// RunPlanNearMisses is RunPlan recording the VK oracle's near misses in
// Result.Coverage.Near (Driver.RecordNearMisses), as the guided loop's
// runs do; nothing else of the run changes.
func RunPlanNearMisses(family string, seed uint64, p plan.Plan, st plan.Streams) Result {
	return runPlan(family, seed, p, st, true)
}

func runPlan(family string, seed uint64, p plan.Plan, st plan.Streams, near bool) Result {
	d := NewDriver()
	if near {
		d.RecordNearMisses()
	}
	if p.VK != nil {
		d.Apply(script.Move{Kind: script.MoveWorkers, N: max(p.VK.Workers, 1)})
	}
	d.Generate(p, st.Schedule, st.Faults)
	return d.Finish(family, seed)
}

// RunSeed runs one seed of a VK family; inside a bubble.
func RunSeed(f plan.Family, seed uint64) Result {
	st := plan.SeedStreams(seed)
	return RunPlan(f.Name, seed, f.Generate(st.Plan), st)
}

// RunMoves replays a script; inside a bubble. Moves that cannot happen in
// the state reached are skipped.
func RunMoves(moves []script.Move) Result {
	d := NewDriver()
	for _, m := range moves {
		d.Apply(m)
	}
	return d.Finish("script", 0)
}
