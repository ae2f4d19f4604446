package check

import (
	"testing"

	"github.com/podsim/podsim/model/ops"
)

// Legal histories: the scenario families of SPEC §3.3 and the upstream
// tests of §5, sequential and concurrent.

func legalHistories() []namedHistory {
	return append(legalSequentialHistories(), legalConcurrentHistories()...)
}

func legalSequentialHistories() []namedHistory {
	a, a2, a3 := pod("a", 1), pod("a", 2), pod("a", 3)
	return []namedHistory{
		{name: "HappyPath", legal: true, build: func() []timed {
			return seq(concat(started(a), []ops.Op{do(killOpts(a, ops.KillOptions{CompletionID: 1})), do(ops.CancelFired{UID: "a"}),
				do(beginTerminating("a", 1, 30)), do(end("a", ops.SyncTerminatingPod, ops.OK)), do(ops.CompletionFired{UID: "a", ID: 1}),
				op(ops.KillPodNowDone{UID: "a", ID: 1}, yes), do(beginTerminated("a", 1)), do(end("a", ops.SyncTerminatedPod, ops.OK)),
				op(q(ops.ShouldPodBeFinished, "a"), yes), op(skp(), ops.KnownPods{}), op(q(ops.CouldHaveRunningContainers, "a"), no)})...)
		}},
		{name: "EarlyKill", legal: true, build: func() []timed {
			// Kill before the first sync: no SyncPod ever (§1.2 shortcut).
			return seq(do(upd(ops.Create, a)), do(upd(ops.Kill, a)), do(beginTerminating("a", 1, 30)),
				do(end("a", ops.SyncTerminatingPod, ops.OK)), do(beginTerminated("a", 1)), do(end("a", ops.SyncTerminatedPod, ops.OK)))
		}},
		{name: "KillAfterTakeBeforeSyncPodEntry", legal: true, build: func() []timed {
			// The worker took the create before the kill and enters SyncPod
			// after the kill returned, with its context already cancelled.
			return seq(do(upd(ops.Create, a)), do(upd(ops.Kill, a)), do(ops.CancelFired{UID: "a"}),
				do(beginSync("a", ops.Create, 1)), do(end("a", ops.SyncPod, ops.Canceled)), do(beginTerminating("a", 1, 30)))
		}},
		{name: "UpdateDoesNotForgetKill", legal: true, build: func() []timed {
			// TestUpdatePodDoesNotForgetSyncPodKill: the trailing update is
			// executed as a termination; the create was coalesced away.
			return seq(do(upd(ops.Create, a)), do(upd(ops.Kill, a)), do(upd(ops.Update, a2)),
				do(beginTerminating("a", 2, 30)), do(end("a", ops.SyncTerminatingPod, ops.OK)),
				do(beginTerminated("a", 2)), do(end("a", ops.SyncTerminatedPod, ops.OK)))
		}},
		{name: "LatestWins", legal: true, build: func() []timed {
			return seq(do(upd(ops.Create, a)), do(upd(ops.Update, a2)), do(upd(ops.Sync, a3)), do(beginSync("a", ops.Sync, 3)), do(end("a", ops.SyncPod, ops.OK)))
		}},
		{name: "FirstAndLatest", legal: true, build: func() []timed {
			return seq(do(upd(ops.Create, a)), do(beginSync("a", ops.Create, 1)), do(upd(ops.Update, a2)), do(upd(ops.Update, a3)),
				do(end("a", ops.SyncPod, ops.OK)), do(beginSync("a", ops.Update, 3)))
		}},
		{name: "NaturalCompletion", legal: true, build: func() []timed {
			return seq(do(upd(ops.Create, a)), do(beginSync("a", ops.Create, 1)), do(ops.SyncEnd{UID: "a", Fn: ops.SyncPod, IsTerminal: true}),
				do(beginTerminating("a", 1, 30)), op(q(ops.IsPodTerminationRequested, "a"), yes),
				do(end("a", ops.SyncTerminatingPod, ops.OK)), do(beginTerminated("a", 1)))
		}},
		{name: "RuntimeOrphan", legal: true, build: func() []timed {
			return seq(op(skp(), ops.KnownPods{}), do(runtimeKill("a")), op(q(ops.ShouldPodContainersBeTerminating, "a"), no),
				do(beginRuntime("a")), do(end("a", ops.SyncTerminatingRuntimePod, ops.OK)),
				op(q(ops.IsPodKnownTerminated, "a"), no), op(q(ops.CouldHaveRunningContainers, "a"), no))
		}},
		{name: "KubeletRestartTerminalPod", legal: true, build: func() []timed {
			u := upd(ops.Create, phase(a, ops.PhaseSucceeded))
			return seq(do(u), op(q(ops.IsPodKnownTerminated, "a"), yes), do(beginTerminated("a", 1)),
				do(end("a", ops.SyncTerminatedPod, ops.OK)), op(q(ops.ShouldPodBeFinished, "a"), yes))
		}},
		{name: "UIDReuse", legal: true, build: func() []timed {
			return seq(concat(started(a), []ops.Op{do(upd(ops.Kill, a)), do(upd(ops.Create, a2)),
				do(beginTerminating("a", 1, 30)), do(end("a", ops.SyncTerminatingPod, ops.OK)),
				do(beginTerminated("a", 1)), do(end("a", ops.SyncTerminatedPod, ops.OK)),
				op(skp("a"), ops.KnownPods{}), do(upd(ops.Create, a2)), do(beginSync("a", ops.Create, 2))})...)
		}},
		{name: "StaticReplacement", legal: true, build: func() []timed {
			sa, sb := staticPod("a", "web", 1), staticPod("b", "web", 1)
			return seq(concat(started(sa), []ops.Op{do(upd(ops.Create, sb)), do(upd(ops.Kill, sa)), op(mirror("web_ns"), yes)},
				[]ops.Op{do(beginTerminating("a", 1, 30)), do(end("a", ops.SyncTerminatingPod, ops.OK)), op(mirror("web_ns"), no),
					do(beginTerminated("a", 1)), do(end("a", ops.SyncTerminatedPod, ops.OK)), do(upd(ops.Sync, sb)),
					do(beginSync("b", ops.Sync, 1))})...)
		}},
		{name: "OrphanDriving", legal: true, build: func() []timed {
			return seq(concat(started(a), []ops.Op{op(skp(), ops.KnownPods{{UID: "a", State: ops.TerminatingWork, Orphan: true, HasConfig: true, Static: false}}),
				do(ops.CancelFired{UID: "a"}), do(beginTerminating("a", 1, 30)), do(end("a", ops.SyncTerminatingPod, ops.Failed)),
				op(skp(), ops.KnownPods{{UID: "a", State: ops.TerminatingWork, Orphan: true, HasConfig: true, Static: false}}), do(beginTerminating("a", 1, 30)),
				do(end("a", ops.SyncTerminatingPod, ops.OK)), op(q(ops.ShouldPodContentBeRemoved, "a"), yes)})...)
		}},
		{name: "StatusReadFailure", legal: true, build: func() []timed {
			// No SyncPod was ever entered, yet the pod started: its status
			// could not be read (§1.8 step 2, recorded), so it is driven, not
			// purged. Without the recorded failure the history is illegal
			// (UnrecordedStatusReadFailure).
			return seq(do(upd(ops.Create, a)), do(ops.StatusReadFailed{UID: "a"}),
				op(skp(), ops.KnownPods{{UID: "a", State: ops.TerminatingWork, Orphan: true, HasConfig: true, Static: false}}),
				do(beginTerminating("a", 1, 30)))
		}},
	}
}

// legalConcurrentHistories have overlapping intervals; the slice order is a
// linearization (Replay's witness).
func legalConcurrentHistories() []namedHistory {
	a := pod("a", 1)
	return []namedHistory{
		{name: "KillDuringCreate", legal: true, build: func() []timed {
			// The kill lands while SyncPod runs: its context is cancelled
			// inside the kill's critical section, the worker then terminates.
			return []timed{
				at(0, 0, 1, do(upd(ops.Create, a))),
				at(1, 2, 2, do(beginSync("a", ops.Create, 1))),
				at(0, 3, 6, do(upd(ops.Kill, a))),
				at(0, 4, 4, do(ops.CancelFired{UID: "a"})),
				at(2, 5, 7, op(q(ops.ShouldPodContainersBeTerminating, "a"), no)),
				at(1, 8, 8, do(end("a", ops.SyncPod, ops.Canceled))),
				at(1, 9, 9, do(beginTerminating("a", 1, 30))),
				at(2, 10, 11, op(q(ops.ShouldPodContainersBeTerminating, "a"), yes)),
			}
		}},
		{name: "KillPodNowTimesOut", legal: true, build: func() []timed {
			return []timed{
				at(0, 0, 1, do(upd(ops.Create, a))),
				at(1, 2, 3, do(killOpts(a, ops.KillOptions{CompletionID: 4, GraceOverride: 5, HasGraceOverride: true}))),
				at(2, 4, 4, do(beginTerminating("a", 1, 5))),
				at(1, 5, 20, op(ops.KillPodNowDone{UID: "a", ID: 4}, no)),
				at(2, 21, 21, do(end("a", ops.SyncTerminatingPod, ops.OK))),
				at(2, 22, 22, do(ops.CompletionFired{UID: "a", ID: 4})),
			}
		}},
		{name: "ConcurrentQueriesAcrossCompletion", legal: true, build: func() []timed {
			// Queries overlapping the completion of SyncTerminatingPod may see
			// either side of it, but not go back.
			return []timed{
				at(0, 0, 1, do(upd(ops.Kill, a))),
				at(1, 2, 2, do(beginTerminating("a", 1, 30))),
				at(1, 3, 3, do(end("a", ops.SyncTerminatingPod, ops.OK))),
				at(3, 5, 8, op(q(ops.CouldHaveRunningContainers, "a"), yes)),
				at(2, 4, 9, op(q(ops.IsPodKnownTerminated, "a"), yes)),
				at(4, 10, 11, op(q(ops.ShouldPodRuntimeBeRemoved, "a"), yes)),
			}
		}},
		{name: "PartitionsAreIndependent", legal: true, build: func() []timed {
			b := pod("b", 1)
			return []timed{
				at(0, 0, 1, do(upd(ops.Create, a))),
				at(1, 0, 1, do(upd(ops.Create, b))),
				at(2, 2, 2, do(beginSync("b", ops.Create, 1))),
				at(3, 2, 2, do(beginSync("a", ops.Create, 1))),
				at(0, 3, 4, op(skp("a", "b"), ops.KnownPods{{UID: "a", State: ops.SyncWork, Orphan: false, HasConfig: true, Static: false}, {UID: "b", State: ops.SyncWork, Orphan: false, HasConfig: true, Static: false}})),
				at(1, 5, 6, op(q(ops.CouldHaveRunningContainers, "zz"), no)),
			}
		}},
	}
}

func TestAccepts_HappyPath(t *testing.T)        { expectHistory(t, "HappyPath") }
func TestAccepts_EarlyKill(t *testing.T)        { expectHistory(t, "EarlyKill") }
func TestAccepts_KillDuringCreate(t *testing.T) { expectHistory(t, "KillDuringCreate") }
func TestAccepts_KillAfterTakeBeforeSyncPodEntry(t *testing.T) {
	expectHistory(t, "KillAfterTakeBeforeSyncPodEntry")
}
func TestAccepts_UpdateDoesNotForgetKill(t *testing.T) { expectHistory(t, "UpdateDoesNotForgetKill") }
func TestAccepts_LatestWins(t *testing.T)              { expectHistory(t, "LatestWins") }
func TestAccepts_FirstAndLatest(t *testing.T)          { expectHistory(t, "FirstAndLatest") }
func TestAccepts_NaturalCompletion(t *testing.T)       { expectHistory(t, "NaturalCompletion") }
func TestAccepts_RuntimeOrphan(t *testing.T)           { expectHistory(t, "RuntimeOrphan") }
func TestAccepts_KubeletRestartTerminalPod(t *testing.T) {
	expectHistory(t, "KubeletRestartTerminalPod")
}
func TestAccepts_UIDReuse(t *testing.T)           { expectHistory(t, "UIDReuse") }
func TestAccepts_StaticReplacement(t *testing.T)  { expectHistory(t, "StaticReplacement") }
func TestAccepts_OrphanDriving(t *testing.T)      { expectHistory(t, "OrphanDriving") }
func TestAccepts_StatusReadFailure(t *testing.T)  { expectHistory(t, "StatusReadFailure") }
func TestAccepts_KillPodNowTimesOut(t *testing.T) { expectHistory(t, "KillPodNowTimesOut") }
func TestAccepts_ConcurrentQueriesAcrossCompletion(t *testing.T) {
	expectHistory(t, "ConcurrentQueriesAcrossCompletion")
}
func TestAccepts_PartitionsAreIndependent(t *testing.T) { expectHistory(t, "PartitionsAreIndependent") }
