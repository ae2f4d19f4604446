package model

import (
	"fmt"
	"testing"

	"github.com/podsim/podsim/model/deviation"
	"github.com/podsim/podsim/model/ops"
)

// runWith replays seq from the initial state with deviations dev and
// returns the first rejection (nil: accepted).
func runWith(dev deviation.Set, seq []ops.Op) error {
	states := Closure([]State{NewStateWith(dev)})
	for i, o := range seq {
		next, err := Next(states, o.Input, o.Output)
		if err != nil {
			return fmt.Errorf("op %d %s: %v", i, ops.Describe(o.Input, o.Output), err)
		}
		states = next
	}
	return nil
}

func kill(p ops.Pod, id int, grace int64, hasGrace bool) ops.UpdatePod {
	return killOpts(p, ops.KillOptions{CompletionID: id, GraceOverride: grace, HasGraceOverride: hasGrace})
}

func terminalEnd(uid string) ops.SyncEnd {
	return ops.SyncEnd{UID: uid, Fn: ops.SyncPod, Outcome: ops.OK, IsTerminal: true}
}

// running is a pod created and synced once, successfully.
func running(uid string) []ops.Op {
	return []ops.Op{do(upd(ops.Create, pod(uid, 1))), do(beginSync(uid, ops.Create, 1)), do(end(uid, ops.SyncPod, ops.OK))}
}

func orphanKept(uid string) ops.KnownPods {
	return ops.KnownPods{{UID: uid, State: ops.TerminatingWork, Orphan: true, HasConfig: true}}
}

// deviationHistories are, per switch, a history of what upstream v1.36.3
// does on that deviation's path (docs/upstream-findings.md), and nothing
// else: the specification rejects it, the model with exactly that switch
// accepts it, and the model with every other switch rejects it.
var deviationHistories = map[deviation.Set][][]ops.Op{
	// A kill reaches a finished pod: its completion never fires.
	deviation.G1: {{do(upd(ops.Update, deleting(pod("a", 1), 0))),
		do(beginTerminating("a", 1, 1)), do(end("a", ops.SyncTerminatingPod, ops.OK)),
		do(beginTerminated("a", 1)), do(end("a", ops.SyncTerminatedPod, ops.OK)),
		do(kill(deleting(pod("a", 1), 0), 1, 5, true)),
		op(q(ops.IsPodKnownTerminated, "a"), yes)}},
	// A static pod killed before it could start is cleaned up unstarted;
	// the kill's completion stays open.
	deviation.G2: {{do(kill(staticPod("b", "web", 1), 1, 5, true)),
		op(q(ops.CouldHaveRunningContainers, "b"), no)}},
	// After unstarted cleanup, ContainersBeTerminating is false.
	deviation.G3: {{do(upd(ops.Kill, staticPod("b", "web", 1))),
		op(q(ops.ShouldPodRuntimeBeRemoved, "b"), yes),
		op(q(ops.ShouldPodContainersBeTerminating, "b"), no)}},
	// Orphan driving requests termination with SyncPod in flight and
	// cancels nothing.
	deviation.G4: {{do(upd(ops.Create, pod("a", 1))), do(beginSync("a", ops.Create, 1)),
		op(skp(), orphanKept("a")),
		op(q(ops.IsPodTerminationRequested, "a"), yes)}},
	// After a force delete (grace 1), a kill with override 5 lengthens the
	// grace and cancels the grace-1 call in flight.
	deviation.GA: {{do(upd(ops.Update, deleting(pod("a", 1), 0))), do(beginTerminating("a", 1, 1)),
		do(kill(deleting(pod("a", 1), 0), 0, 5, true)),
		do(ops.CancelFired{UID: "a"}), do(end("a", ops.SyncTerminatingPod, ops.Canceled)),
		do(beginTerminating("a", 1, 5))}},
	// Worker-driven termination carries no grace: orphan driving replays
	// the last update, which carries none; natural completion records none,
	// so a later kill's override 50 becomes the grace although the spec
	// grace is 30 (M1), and a later force delete shortens nothing, so the
	// nil-grace call in flight is not cancelled.
	deviation.GC: {
		append(running("a"), op(skp(), orphanKept("a")), do(beginTerminating("a", 1, 0))),
		{do(upd(ops.Create, pod("a", 1))), do(beginSync("a", ops.Create, 1)), do(terminalEnd("a")),
			do(kill(pod("a", 1), 0, 50, true)), do(beginTerminating("a", 1, 50))},
		{do(upd(ops.Create, pod("a", 1))), do(beginSync("a", ops.Create, 1)), do(terminalEnd("a")),
			do(beginTerminating("a", 1, 0)), do(upd(ops.Update, deleting(pod("a", 2), 0))),
			op(q(ops.IsPodTerminationRequested, "a"), yes)},
	},
}

// TestEachDeviationIsExactlyItsPath: for every switch, its history is
// rejected by the specification, accepted with exactly that switch, and
// rejected with every other switch on (a dropped deviation: no other
// deviation, nor all of them together, stands in for it).
func TestEachDeviationIsExactlyItsPath(t *testing.T) {
	for dev := deviation.Set(1); dev <= deviation.All; dev <<= 1 {
		histories, ok := deviationHistories[dev]
		if !ok {
			t.Errorf("%s: no history", dev)
			continue
		}
		for i, seq := range histories {
			if err := runWith(0, seq); err == nil {
				t.Errorf("%s #%d: the specification accepts its history", dev, i)
			}
			if err := runWith(dev, seq); err != nil {
				t.Errorf("%s #%d: the model with %s rejects its history: %v", dev, i, dev, err)
			}
			if err := runWith(deviation.All&^dev, seq); err == nil {
				t.Errorf("%s #%d: the model with every other deviation (%s) accepts its history", dev, i, deviation.All&^dev)
			}
		}
	}
}

// TestDeviationsDoNotSwallowNewBugs: histories of bugs that look like
// known deviations but are not (docs/upstream-findings.md, "Negative
// tests") are rejected with every switch on.
func TestDeviationsDoNotSwallowNewBugs(t *testing.T) {
	bugs := map[string][]ops.Op{
		// The decoy channel: a kill of a running pod whose completion is
		// never closed on the normal termination path (G1 and G2 cover only
		// finished pods and unstarted cleanups).
		"decoy completion": append(running("a"), do(kill(pod("a", 1), 1, 0, false)),
			do(beginTerminating("a", 1, 30)), do(end("a", ops.SyncTerminatingPod, ops.OK)),
			op(q(ops.IsPodKnownTerminated, "a"), yes)),
		// A lost kill: the pod workers never saw it.
		"lost kill": append(running("a"), do(upd(ops.Kill, pod("a", 1))),
			op(q(ops.IsPodTerminationRequested, "a"), no)),
		// A lying syncer: SyncTerminatingPod failed, the workers act as if
		// it succeeded.
		"lying syncer": append(running("a"), do(upd(ops.Kill, pod("a", 1))),
			do(beginTerminating("a", 1, 30)), do(end("a", ops.SyncTerminatingPod, ops.Failed)),
			op(q(ops.IsPodKnownTerminated, "a"), yes)),
		// A nil grace on a kill that went through UpdatePod's terminating
		// branch (GC covers only worker-driven replays).
		"nil grace on a kill": append(running("a"), do(upd(ops.Kill, pod("a", 1))),
			do(beginTerminating("a", 1, 0))),
		// A larger grace without a force delete (GA needs deletion grace 0).
		"grace lengthened": append(running("a"), do(kill(pod("a", 1), 0, 5, true)),
			do(beginTerminating("a", 1, 5)), do(kill(pod("a", 1), 0, 20, true)),
			do(ops.CancelFired{UID: "a"})),
	}
	for name, seq := range bugs {
		if err := runWith(deviation.All, seq); err == nil {
			t.Errorf("%s: accepted with every deviation switched on", name)
		}
	}
}
