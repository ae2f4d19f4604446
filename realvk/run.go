package realvk

import (
	"fmt"
	"strings"

	"github.com/podsim/podsim/oracle/coverage"
	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/realdriver"
	"github.com/podsim/podsim/realvk/callgate"
	"github.com/podsim/podsim/realvk/script"
	"github.com/podsim/podsim/sim"
)

// Finding is one violation in a run on the real controller: the shared
// VK oracle's (oracle/vk, Check "VK1"…"VK7") or the driver's own
// ("liveness": Done never closed).
type Finding struct {
	Check   string
	Message string
	Step    int
	// Class is the upstream deviation it is (docs/upstream-findings.md,
	// "virtual-kubelet"), or "" if unexplained.
	Class string
}

func (f Finding) String() string {
	return fmt.Sprintf("[%s] %s at step %d: %s", realdriver.ClassLabel(f.Class), f.Check, f.Step, f.Message)
}

// Result is one run on the real controller.
type Result struct {
	Family   string
	Seed     uint64
	Moves    []script.Move // the plan-phase moves: the run's replayable script
	Findings []Finding
	TraceSHA string
	Trace    []string
	// Coverage is the VK state coverage the run reached
	// (oracle/vkcoverage, from the notes the driver recorded, the settle
	// and shutdown phases included). A failed status write is noted as
	// transient (an injected error), "not found", "conflict" or "invalid"
	// (the API server model refused to change a terminal phase, which the
	// simulated VK world never does).
	Coverage coverage.Coverage
}

// Failed reports whether any check failed.
func (r Result) Failed() bool { return len(r.Findings) > 0 }

// Unexplained are the findings no class explains.
func (r Result) Unexplained() []Finding { return realdriver.Unexplained(r.Findings, classOf) }

// Classes lists the distinct classes of the findings in order of first
// appearance ("" for unexplained ones).
func (r Result) Classes() []string { return realdriver.Classes(r.Findings, classOf) }

func classOf(f Finding) string { return f.Class }

// MaxPlanSteps bounds the plan phase.
const MaxPlanSteps = 600

// Generate drives a VK plan with the seed's schedule and fault streams:
// before every step it picks, from the schedule stream, the next plan
// action, the release of a parked call (its outcome from the fault
// stream and the plan's rates), a watch or handler event, a notification,
// or a sleep. Plan time is not kept: the schedule alone decides how the
// controller's moves interleave with the plan's actions, so the plan's
// informer lag and slow calls are whatever the schedule makes them (a
// call left parked is slow; an event left undelivered lags). Inside a
// bubble.
func (d *Driver) Generate(p plan.Plan, schedule, faults sim.Source) {
	next := 0
	for d.Step < MaxPlanSteps {
		opts := d.options()
		if next == len(p.Actions) && len(opts) == 0 {
			return
		}
		r := schedule.Intn(16)
		switch {
		case next < len(p.Actions) && !d.restarting && (len(opts) == 0 || r < 5):
			d.Apply(script.Move{Kind: script.MoveAction, Action: p.Actions[next]})
			next++
		case r == 5 || len(opts) == 0:
			d.Apply(script.Move{Kind: script.MoveSleep})
		default:
			m := opts[schedule.Intn(len(opts))]
			if m.Kind == script.MoveRelease {
				m.Outcome = chooseOutcome(m.Label, p, faults)
			}
			d.Apply(m)
		}
	}
}

// options are the moves the controller's side offers now, in a
// deterministic order: parked calls by label, the watch, the handler
// queue, notifications by key.
func (d *Driver) options() []script.Move {
	w := d.W
	var out []script.Move
	for _, c := range w.gates.Parked() {
		out = append(out, script.Move{Kind: script.MoveRelease, Label: c.Label()})
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.pendingWatch() > 0 {
		out = append(out, script.Move{Kind: script.MoveWatch})
	}
	if len(w.events) > 0 {
		out = append(out, script.Move{Kind: script.MoveEvent})
	}
	if w.running && w.notifyCB[w.gen] != nil {
		for _, key := range w.Notifiable() {
			out = append(out, script.Move{Kind: script.MoveNotify, Label: key})
		}
	}
	return out
}

// chooseOutcome draws a released call's outcome: the informer's list
// always succeeds (a failed list would back off with client-go's global
// random jitter), and so do the controller's own gates (a handler's
// start, a dangling-pod goroutine's start, a notification's poll:
// spans.go), which have no error to return; otherwise Fail by the plan's ErrorRate (provider and
// API calls alike), then Missing for a provider GetPod by its MissingRate
// (a stale provider cache).
func chooseOutcome(label string, p plan.Plan, src sim.Source) callgate.Outcome {
	if !fallible(label) {
		return callgate.OK
	}
	if src.Intn(1000) < p.Faults.ErrorRate {
		return callgate.Fail
	}
	if p.VK != nil && strings.Contains(label, "/provider.GetPod/") && src.Intn(1000) < p.VK.MissingRate {
		return callgate.Missing
	}
	return callgate.OK
}
