package model

import "testing"

// Legal histories: the scenario families of SPEC §3.3 and the upstream
// tests of §5, sequential and concurrent.

func legalHistories() []namedHistory {
	return append(legalSequentialHistories(), legalConcurrentHistories()...)
}

func legalSequentialHistories() []namedHistory {
	a, a2, a3 := pod("a", 1), pod("a", 2), pod("a", 3)
	return []namedHistory{
		{name: "HappyPath", legal: true, build: func() []timed {
			return seq(concat(started(a), []Op{do(killOpts(a, KillOptions{CompletionID: 1})), do(CancelFired{UID: "a"}),
				do(beginTerminating("a", 1, 30)), do(end("a", SyncTerminatingPod, OK)), do(CompletionFired{UID: "a", ID: 1}),
				op(KillPodNowDone{UID: "a", ID: 1}, yes), do(beginTerminated("a", 1)), do(end("a", SyncTerminatedPod, OK)),
				op(q(ShouldPodBeFinished, "a"), yes), op(skp(), KnownPods{}), op(q(CouldHaveRunningContainers, "a"), no)})...)
		}},
		{name: "EarlyKill", legal: true, build: func() []timed {
			// Kill before the first sync: no SyncPod ever (§1.2 shortcut).
			return seq(do(upd(Create, a)), do(upd(Kill, a)), do(beginTerminating("a", 1, 30)),
				do(end("a", SyncTerminatingPod, OK)), do(beginTerminated("a", 1)), do(end("a", SyncTerminatedPod, OK)))
		}},
		{name: "KillAfterTakeBeforeSyncPodEntry", legal: true, build: func() []timed {
			// The worker took the create before the kill and enters SyncPod
			// after the kill returned, with its context already cancelled.
			return seq(do(upd(Create, a)), do(upd(Kill, a)), do(CancelFired{UID: "a"}),
				do(beginSync("a", Create, 1)), do(end("a", SyncPod, Canceled)), do(beginTerminating("a", 1, 30)))
		}},
		{name: "UpdateDoesNotForgetKill", legal: true, build: func() []timed {
			// TestUpdatePodDoesNotForgetSyncPodKill: the trailing update is
			// executed as a termination; the create was coalesced away.
			return seq(do(upd(Create, a)), do(upd(Kill, a)), do(upd(Update, a2)),
				do(beginTerminating("a", 2, 30)), do(end("a", SyncTerminatingPod, OK)),
				do(beginTerminated("a", 2)), do(end("a", SyncTerminatedPod, OK)))
		}},
		{name: "LatestWins", legal: true, build: func() []timed {
			return seq(do(upd(Create, a)), do(upd(Update, a2)), do(upd(Sync, a3)), do(beginSync("a", Sync, 3)), do(end("a", SyncPod, OK)))
		}},
		{name: "FirstAndLatest", legal: true, build: func() []timed {
			return seq(do(upd(Create, a)), do(beginSync("a", Create, 1)), do(upd(Update, a2)), do(upd(Update, a3)),
				do(end("a", SyncPod, OK)), do(beginSync("a", Update, 3)))
		}},
		{name: "NaturalCompletion", legal: true, build: func() []timed {
			return seq(do(upd(Create, a)), do(beginSync("a", Create, 1)), do(SyncEnd{UID: "a", Fn: SyncPod, IsTerminal: true}),
				do(beginTerminating("a", 1, 30)), op(q(IsPodTerminationRequested, "a"), yes),
				do(end("a", SyncTerminatingPod, OK)), do(beginTerminated("a", 1)))
		}},
		{name: "RuntimeOrphan", legal: true, build: func() []timed {
			return seq(op(skp(), KnownPods{}), do(runtimeKill("a")), op(q(ShouldPodContainersBeTerminating, "a"), no),
				do(beginRuntime("a")), do(end("a", SyncTerminatingRuntimePod, OK)),
				op(q(IsPodKnownTerminated, "a"), no), op(q(CouldHaveRunningContainers, "a"), no))
		}},
		{name: "KubeletRestartTerminalPod", legal: true, build: func() []timed {
			u := upd(Create, phase(a, PhaseSucceeded))
			return seq(do(u), op(q(IsPodKnownTerminated, "a"), yes), do(beginTerminated("a", 1)),
				do(end("a", SyncTerminatedPod, OK)), op(q(ShouldPodBeFinished, "a"), yes))
		}},
		{name: "UIDReuse", legal: true, build: func() []timed {
			return seq(concat(started(a), []Op{do(upd(Kill, a)), do(upd(Create, a2)),
				do(beginTerminating("a", 1, 30)), do(end("a", SyncTerminatingPod, OK)),
				do(beginTerminated("a", 1)), do(end("a", SyncTerminatedPod, OK)),
				op(skp("a"), KnownPods{}), do(upd(Create, a2)), do(beginSync("a", Create, 2))})...)
		}},
		{name: "StaticReplacement", legal: true, build: func() []timed {
			sa, sb := staticPod("a", "web", 1), staticPod("b", "web", 1)
			return seq(concat(started(sa), []Op{do(upd(Create, sb)), do(upd(Kill, sa)), op(mirror("web_ns"), yes)},
				[]Op{do(beginTerminating("a", 1, 30)), do(end("a", SyncTerminatingPod, OK)), op(mirror("web_ns"), no),
					do(beginTerminated("a", 1)), do(end("a", SyncTerminatedPod, OK)), do(upd(Sync, sb)),
					do(beginSync("b", Sync, 1))})...)
		}},
		{name: "OrphanDriving", legal: true, build: func() []timed {
			return seq(concat(started(a), []Op{op(skp(), KnownPods{{"a", TerminatingWork, true, true, false}}),
				do(CancelFired{UID: "a"}), do(beginTerminating("a", 1, 30)), do(end("a", SyncTerminatingPod, Failed)),
				op(skp(), KnownPods{{"a", TerminatingWork, true, true, false}}), do(beginTerminating("a", 1, 30)),
				do(end("a", SyncTerminatingPod, OK)), op(q(ShouldPodContentBeRemoved, "a"), yes)})...)
		}},
		{name: "StatusReadFailure", legal: true, build: func() []timed {
			// No SyncPod was ever entered, yet the pod started: its status
			// could not be read (§1.8 step 2), so it is driven, not purged.
			return seq(do(upd(Create, a)), op(skp(), KnownPods{{"a", TerminatingWork, true, true, false}}),
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
				at(0, 0, 1, do(upd(Create, a))),
				at(1, 2, 2, do(beginSync("a", Create, 1))),
				at(0, 3, 6, do(upd(Kill, a))),
				at(0, 4, 4, do(CancelFired{UID: "a"})),
				at(2, 5, 7, op(q(ShouldPodContainersBeTerminating, "a"), no)),
				at(1, 8, 8, do(end("a", SyncPod, Canceled))),
				at(1, 9, 9, do(beginTerminating("a", 1, 30))),
				at(2, 10, 11, op(q(ShouldPodContainersBeTerminating, "a"), yes)),
			}
		}},
		{name: "KillPodNowTimesOut", legal: true, build: func() []timed {
			return []timed{
				at(0, 0, 1, do(upd(Create, a))),
				at(1, 2, 3, do(killOpts(a, KillOptions{CompletionID: 4, GraceOverride: 5, HasGraceOverride: true}))),
				at(2, 4, 4, do(beginTerminating("a", 1, 5))),
				at(1, 5, 20, op(KillPodNowDone{UID: "a", ID: 4}, no)),
				at(2, 21, 21, do(end("a", SyncTerminatingPod, OK))),
				at(2, 22, 22, do(CompletionFired{UID: "a", ID: 4})),
			}
		}},
		{name: "ConcurrentQueriesAcrossCompletion", legal: true, build: func() []timed {
			// Queries overlapping the completion of SyncTerminatingPod may see
			// either side of it, but not go back.
			return []timed{
				at(0, 0, 1, do(upd(Kill, a))),
				at(1, 2, 2, do(beginTerminating("a", 1, 30))),
				at(1, 3, 3, do(end("a", SyncTerminatingPod, OK))),
				at(3, 5, 8, op(q(CouldHaveRunningContainers, "a"), yes)),
				at(2, 4, 9, op(q(IsPodKnownTerminated, "a"), yes)),
				at(4, 10, 11, op(q(ShouldPodRuntimeBeRemoved, "a"), yes)),
			}
		}},
		{name: "PartitionsAreIndependent", legal: true, build: func() []timed {
			b := pod("b", 1)
			return []timed{
				at(0, 0, 1, do(upd(Create, a))),
				at(1, 0, 1, do(upd(Create, b))),
				at(2, 2, 2, do(beginSync("b", Create, 1))),
				at(3, 2, 2, do(beginSync("a", Create, 1))),
				at(0, 3, 4, op(skp("a", "b"), KnownPods{{"a", SyncWork, false, true, false}, {"b", SyncWork, false, true, false}})),
				at(1, 5, 6, op(q(CouldHaveRunningContainers, "zz"), no)),
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
