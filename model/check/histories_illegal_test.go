package check

import (
	"testing"

	"github.com/podsim/podsim/model/ops"
)

// Illegal histories: for each safety invariant of SPEC §3.1 the model can
// see, a short violation. because is a fragment of Replay's reason.

func illegalHistories() []namedHistory {
	return append(illegalHistoriesS1toS10(), illegalHistoriesS11toS19()...)
}

// illegal builds a sequential illegal history.
func illegal(name, because string, list ...ops.Op) namedHistory {
	return namedHistory{name: name, because: because, build: func() []timed { return seq(list...) }}
}

// terminatedOps takes pod a (v1) to D; finishedOps to F.
func terminatedOps() []ops.Op {
	a := pod("a", 1)
	return concat(started(a), []ops.Op{do(upd(ops.Kill, a)), do(beginTerminating("a", 1, 30)), do(end("a", ops.SyncTerminatingPod, ops.OK))})
}

func finishedOps() []ops.Op { a := pod("a", 1); return concat(started(a), lifecycle(a)) }

func illegalHistoriesS1toS10() []namedHistory {
	a, a2 := pod("a", 1), pod("a", 2)
	sa, sb := staticPod("a", "web", 1), staticPod("b", "web", 1)
	terminated, finished, h := terminatedOps(), finishedOps(), illegal
	return []namedHistory{
		// The pass that started the pod ended with no call, but no failed
		// status read was recorded: the take is pinned to its SyncPod
		// (StatusReadFailure is the legal twin).
		h("UnrecordedStatusReadFailure", "SyncTerminatingPod begins but the work taken is SyncPod", do(upd(ops.Create, a)),
			op(skp(), ops.KnownPods{{UID: "a", State: ops.TerminatingWork, Orphan: true, HasConfig: true, Static: false}}),
			do(beginTerminating("a", 1, 30))),
		// A failed read after a take whose call already began, or with
		// nothing taken, is no failure the worker can have had.
		h("StatusReadFailedInsideTheCall", "a status read failed but no update was just taken", do(upd(ops.Create, a)),
			do(beginSync("a", ops.Create, 1)), do(ops.StatusReadFailed{UID: "a"})),
		h("S1_OverlappingSyncCalls", "in flight (S1)", do(upd(ops.Create, a)), do(beginSync("a", ops.Create, 1)),
			do(upd(ops.Update, a2)), do(beginSync("a", ops.Update, 2))),
		h("S2_TerminatedBeforeTerminating", "SyncTerminatedPod begins", concat(started(a),
			[]ops.Op{do(upd(ops.Kill, a)), do(beginTerminated("a", 1))})...),
		h("S2_RuntimePodGetsSyncTerminatingPod", "SyncTerminatingPod begins", do(runtimeKill("a")), do(beginTerminating("a", 0, 1))),
		h("S3_SyncPodAfterKill", "SyncPod begins", concat(started(a),
			[]ops.Op{do(upd(ops.Kill, a)), do(ops.CancelFired{UID: "a"}), do(beginSync("a", ops.Sync, 1))})...),
		h("S3_KillDoesNotCancelInFlightSyncPod", "cancel/a must happen first", do(upd(ops.Create, a)), do(beginSync("a", ops.Create, 1)),
			do(upd(ops.Kill, a)), op(q(ops.IsPodTerminationRequested, "a"), yes)),
		h("S3_OrphanDrivingDoesNotCancel", "cancel/a must happen first", do(upd(ops.Create, a)), do(beginSync("a", ops.Create, 1)),
			op(skp(), ops.KnownPods{{UID: "a", State: ops.TerminatingWork, Orphan: true, HasConfig: true, Static: false}}), op(q(ops.IsPodTerminationRequested, "a"), yes)),
		h("S4_ContainersBeTerminatingWhileSyncPodInFlight", "ShouldPodContainersBeTerminating(a) = true", do(upd(ops.Create, a)),
			do(beginSync("a", ops.Create, 1)), do(upd(ops.Kill, a)), do(ops.CancelFired{UID: "a"}), op(q(ops.ShouldPodContainersBeTerminating, "a"), yes)),
		h("S5_TerminatedAfterFailedTerminating", "SyncTerminatedPod begins", do(upd(ops.Kill, a)), do(beginTerminating("a", 1, 30)),
			do(end("a", ops.SyncTerminatingPod, ops.Failed)), do(beginTerminated("a", 1))),
		h("S6_SyncAfterFinished", "SyncTerminatedPod begins", concat(finished, []ops.Op{do(upd(ops.Update, a2)), do(beginTerminated("a", 2))})...),
		h("S6_CreateAfterFinishedStartsInPlace", "SyncPod begins", concat(finished, []ops.Op{do(upd(ops.Create, a2)), do(beginSync("a", ops.Create, 2))})...),
		h("S7_NoRunningContainersWhileTerminating", "CouldHaveRunningContainers(a) = false", do(upd(ops.Kill, a)),
			do(beginTerminating("a", 1, 30)), op(q(ops.CouldHaveRunningContainers, "a"), no)),
		h("S8_TerminationRequestedReverts", "IsPodTerminationRequested(a) = false", do(upd(ops.Kill, a)),
			op(q(ops.IsPodTerminationRequested, "a"), yes), op(q(ops.IsPodTerminationRequested, "a"), no)),
		h("S9_KnownTerminatedWithoutRuntimeRemoval", "ShouldPodRuntimeBeRemoved(a) = false", concat(terminated,
			[]ops.Op{op(q(ops.IsPodKnownTerminated, "a"), yes), op(q(ops.ShouldPodRuntimeBeRemoved, "a"), no)})...),
		h("S9_UnstartedCleanupNotAcknowledged", "ShouldPodContainersBeTerminating(b) = false", concat(started(sa),
			[]ops.Op{do(upd(ops.Create, sb)), do(upd(ops.Kill, sb)), op(q(ops.ShouldPodRuntimeBeRemoved, "b"), yes),
				op(q(ops.ShouldPodContainersBeTerminating, "b"), no)})...),
		h("S10_UnknownUIDBeforeSyncNotRunning", "CouldHaveRunningContainers(x) = false", op(q(ops.CouldHaveRunningContainers, "x"), no)),
		h("S10_UnknownUIDAfterSyncKeepsContent", "ShouldPodContentBeRemoved(x) = false", op(skp(), ops.KnownPods{}),
			op(q(ops.ShouldPodContentBeRemoved, "x"), no)),
	}
}

func illegalHistoriesS11toS19() []namedHistory {
	a, a2 := pod("a", 1), pod("a", 2)
	sa, sb, sc := staticPod("a", "web", 1), staticPod("b", "web", 1), staticPod("c", "web", 1)
	terminated, finished, h := terminatedOps(), finishedOps(), illegal
	return []namedHistory{
		h("S11_GraceIncreases", "(S11)", do(upd(ops.Update, deleting(a, 5))), do(beginTerminating("a", 1, 5)),
			do(end("a", ops.SyncTerminatingPod, ops.Failed)), do(upd(ops.Sync, a)), do(beginTerminating("a", 1, 30))),
		h("S11_ForceDeleteGetsSpecGrace", "(S11)", concat(started(a), []ops.Op{do(upd(ops.Update, deleting(a, 0))),
			do(ops.CancelFired{UID: "a"}), do(beginTerminating("a", 1, 30))})...),
		h("S11_ShorterGraceWithoutCancel", "cancel/a must happen first", do(upd(ops.Kill, a)), do(beginTerminating("a", 1, 30)),
			do(killOpts(a, ops.KillOptions{GraceOverride: 5, HasGraceOverride: true})), op(q(ops.IsPodTerminationRequested, "a"), yes)),
		h("S12_StaleUpdateDelivered", "the update taken has v2", concat(started(a),
			[]ops.Op{do(upd(ops.Update, a2)), do(beginSync("a", ops.Update, 1))})...),
		h("S13_KillForgottenByLaterUpdate", "SyncPod begins", do(upd(ops.Create, a)), do(upd(ops.Kill, a)), do(upd(ops.Update, a2)),
			do(beginSync("a", ops.Update, 2))),
		h("S14_CompletionBeforeTermination", "completion #1 fired but is not due (S14)", concat(started(a),
			[]ops.Op{do(killOpts(a, ops.KillOptions{CompletionID: 1})), do(beginTerminating("a", 1, 30)), do(ops.CompletionFired{UID: "a", ID: 1})})...),
		h("S14_CompletionFiredTwice", "completion #2 fired but is not due (S14)", concat(started(a),
			[]ops.Op{do(ops.UpdatePod{Type: ops.Update, Pod: a, Kill: ops.KillOptions{CompletionID: 2}}),
				do(ops.CompletionFired{UID: "a", ID: 2}), do(ops.CompletionFired{UID: "a", ID: 2})})...),
		h("S14_KillOnFinishedPodNeverCompletes", "completion#3 of a must happen first", concat(finished,
			[]ops.Op{do(killOpts(a, ops.KillOptions{CompletionID: 3})), op(q(ops.ShouldPodBeFinished, "a"), yes)})...),
		h("S14_UnstartedCleanupCompletionOpen", "ShouldPodBeFinished(b)", concat(started(sa),
			[]ops.Op{do(upd(ops.Create, sb)), do(killOpts(sb, ops.KillOptions{CompletionID: 4})), op(q(ops.ShouldPodBeFinished, "b"), yes)})...),
		h("S14_PurgedOrphanCompletionOpen", "completion#5 of a must happen first", do(killOpts(a, ops.KillOptions{CompletionID: 5})),
			op(skp(), ops.KnownPods{}), op(q(ops.CouldHaveRunningContainers, "a"), no)),
		h("S14_KillPodNowReportsUnfiredCompletion", "completed=true but the completion fired=false", concat(started(a),
			[]ops.Op{do(killOpts(a, ops.KillOptions{CompletionID: 6})), op(ops.KillPodNowDone{UID: "a", ID: 6}, yes)})...),
		h("S15_StaticStartsWhileOtherTerminating", "b: SyncPod begins", concat(started(sa),
			[]ops.Op{do(upd(ops.Create, sb)), do(upd(ops.Kill, sa)), do(beginTerminating("a", 1, 30)), do(beginSync("b", ops.Create, 1))})...),
		h("S15_StaticWaiterOrder", "c: SyncPod begins", concat(started(sa), []ops.Op{do(upd(ops.Create, sb)), do(upd(ops.Create, sc))},
			lifecycle(sa), []ops.Op{do(beginSync("c", ops.Create, 1))})...),
		h("S16_ReusedUIDPurgedBeforeOldFinished", "SyncKnownPods returned {}", concat(terminated,
			[]ops.Op{do(upd(ops.Create, a2)), op(skp("a"), ops.KnownPods{})})...),
		h("S17_RuntimeKillOnTerminatedPod", "SyncTerminatingRuntimePod begins", concat(terminated,
			[]ops.Op{do(runtimeKill("a")), do(beginRuntime("a"))})...),
		h("S17_RuntimeKillLeadsToSyncTerminatedPod", "the pod is unknown", do(runtimeKill("a")), do(beginRuntime("a")),
			do(end("a", ops.SyncTerminatingRuntimePod, ops.OK)), do(beginTerminated("a", 0))),
		h("S17_NonKillRuntimeUpdateCreatesRecord", "SyncKnownPods returned", op(skp(), ops.KnownPods{}),
			do(ops.UpdatePod{Type: ops.Sync, Pod: ops.Pod{UID: "a"}, RuntimeOnly: true}), op(skp(), ops.KnownPods{{UID: "a", State: ops.TerminatingWork, Orphan: true, HasConfig: false, Static: false}})),
		h("S18_PurgeOfStartedUnfinishedOrphan", "SyncKnownPods returned {}", concat(started(a), []ops.Op{op(skp(), ops.KnownPods{})})...),
		h("S18_PurgedUIDReported", "SyncKnownPods returned {a:terminated", concat(finished,
			[]ops.Op{op(q(ops.ShouldPodBeFinished, "a"), yes), op(skp(), ops.KnownPods{{UID: "a", State: ops.TerminatedWork, Orphan: true, HasConfig: true, Static: false}})})...),
		h("S19_ContentRemovedForPlainKill", "ShouldPodContentBeRemoved(a) = true", concat(terminated,
			[]ops.Op{op(q(ops.ShouldPodContentBeRemoved, "a"), yes)})...),
		{name: "S8_ConcurrentQueriesGoBack", because: "IsPodTerminationRequested(a) = false", build: func() []timed {
			return []timed{
				at(0, 0, 10, do(upd(ops.Kill, a))),
				at(1, 1, 2, op(q(ops.IsPodTerminationRequested, "a"), yes)),
				at(2, 3, 4, op(q(ops.IsPodTerminationRequested, "a"), no)),
			}
		}},
	}
}

func TestRejects_S1_OverlappingSyncCalls(t *testing.T) { expectHistory(t, "S1_OverlappingSyncCalls") }
func TestRejects_S2_TerminatedBeforeTerminating(t *testing.T) {
	expectHistory(t, "S2_TerminatedBeforeTerminating")
}
func TestRejects_S2_RuntimePodGetsSyncTerminatingPod(t *testing.T) {
	expectHistory(t, "S2_RuntimePodGetsSyncTerminatingPod")
}
func TestRejects_S3_SyncPodAfterKill(t *testing.T) { expectHistory(t, "S3_SyncPodAfterKill") }
func TestRejects_S3_KillDoesNotCancelInFlightSyncPod(t *testing.T) {
	expectHistory(t, "S3_KillDoesNotCancelInFlightSyncPod")
}
func TestRejects_S3_OrphanDrivingDoesNotCancel(t *testing.T) {
	expectHistory(t, "S3_OrphanDrivingDoesNotCancel")
}
func TestRejects_S4_ContainersBeTerminatingWhileSyncPodInFlight(t *testing.T) {
	expectHistory(t, "S4_ContainersBeTerminatingWhileSyncPodInFlight")
}
func TestRejects_S5_TerminatedAfterFailedTerminating(t *testing.T) {
	expectHistory(t, "S5_TerminatedAfterFailedTerminating")
}
func TestRejects_S6_SyncAfterFinished(t *testing.T) { expectHistory(t, "S6_SyncAfterFinished") }
func TestRejects_S6_CreateAfterFinishedStartsInPlace(t *testing.T) {
	expectHistory(t, "S6_CreateAfterFinishedStartsInPlace")
}
func TestRejects_S7_NoRunningContainersWhileTerminating(t *testing.T) {
	expectHistory(t, "S7_NoRunningContainersWhileTerminating")
}
func TestRejects_S8_TerminationRequestedReverts(t *testing.T) {
	expectHistory(t, "S8_TerminationRequestedReverts")
}
func TestRejects_S8_ConcurrentQueriesGoBack(t *testing.T) {
	expectHistory(t, "S8_ConcurrentQueriesGoBack")
}
func TestRejects_S9_KnownTerminatedWithoutRuntimeRemoval(t *testing.T) {
	expectHistory(t, "S9_KnownTerminatedWithoutRuntimeRemoval")
}
func TestRejects_S9_UnstartedCleanupNotAcknowledged(t *testing.T) {
	expectHistory(t, "S9_UnstartedCleanupNotAcknowledged")
}
func TestRejects_S10_UnknownUIDBeforeSyncNotRunning(t *testing.T) {
	expectHistory(t, "S10_UnknownUIDBeforeSyncNotRunning")
}
func TestRejects_S10_UnknownUIDAfterSyncKeepsContent(t *testing.T) {
	expectHistory(t, "S10_UnknownUIDAfterSyncKeepsContent")
}
func TestRejects_S11_GraceIncreases(t *testing.T) { expectHistory(t, "S11_GraceIncreases") }
func TestRejects_S11_ForceDeleteGetsSpecGrace(t *testing.T) {
	expectHistory(t, "S11_ForceDeleteGetsSpecGrace")
}
func TestRejects_S11_ShorterGraceWithoutCancel(t *testing.T) {
	expectHistory(t, "S11_ShorterGraceWithoutCancel")
}
func TestRejects_S12_StaleUpdateDelivered(t *testing.T) { expectHistory(t, "S12_StaleUpdateDelivered") }
func TestRejects_S13_KillForgottenByLaterUpdate(t *testing.T) {
	expectHistory(t, "S13_KillForgottenByLaterUpdate")
}
func TestRejects_S14_CompletionBeforeTermination(t *testing.T) {
	expectHistory(t, "S14_CompletionBeforeTermination")
}
func TestRejects_S14_CompletionFiredTwice(t *testing.T) { expectHistory(t, "S14_CompletionFiredTwice") }
func TestRejects_S14_KillOnFinishedPodNeverCompletes(t *testing.T) {
	expectHistory(t, "S14_KillOnFinishedPodNeverCompletes")
}
func TestRejects_S14_UnstartedCleanupCompletionOpen(t *testing.T) {
	expectHistory(t, "S14_UnstartedCleanupCompletionOpen")
}
func TestRejects_S14_PurgedOrphanCompletionOpen(t *testing.T) {
	expectHistory(t, "S14_PurgedOrphanCompletionOpen")
}
func TestRejects_S14_KillPodNowReportsUnfiredCompletion(t *testing.T) {
	expectHistory(t, "S14_KillPodNowReportsUnfiredCompletion")
}
func TestRejects_S15_StaticStartsWhileOtherTerminating(t *testing.T) {
	expectHistory(t, "S15_StaticStartsWhileOtherTerminating")
}
func TestRejects_S15_StaticWaiterOrder(t *testing.T) { expectHistory(t, "S15_StaticWaiterOrder") }
func TestRejects_S16_ReusedUIDPurgedBeforeOldFinished(t *testing.T) {
	expectHistory(t, "S16_ReusedUIDPurgedBeforeOldFinished")
}
func TestRejects_S17_RuntimeKillOnTerminatedPod(t *testing.T) {
	expectHistory(t, "S17_RuntimeKillOnTerminatedPod")
}
func TestRejects_S17_RuntimeKillLeadsToSyncTerminatedPod(t *testing.T) {
	expectHistory(t, "S17_RuntimeKillLeadsToSyncTerminatedPod")
}
func TestRejects_S17_NonKillRuntimeUpdateCreatesRecord(t *testing.T) {
	expectHistory(t, "S17_NonKillRuntimeUpdateCreatesRecord")
}
func TestRejects_S18_PurgeOfStartedUnfinishedOrphan(t *testing.T) {
	expectHistory(t, "S18_PurgeOfStartedUnfinishedOrphan")
}
func TestRejects_S18_PurgedUIDReported(t *testing.T) { expectHistory(t, "S18_PurgedUIDReported") }
func TestRejects_S19_ContentRemovedForPlainKill(t *testing.T) {
	expectHistory(t, "S19_ContentRemovedForPlainKill")
}
