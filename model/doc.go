// Package model is the sequential reference specification of the kubelet's
// pod workers in porcupine's terms: the behaviour of SPEC.md §1 (v1.36
// upstream minus the contract gaps of §1.17) as a pure step function over
// plain values. It is written from SPEC.md alone and shares no code with
// package workers, so that it is a second, independent reading of the spec.
// It imports only the standard library and porcupine.
//
// # Operations
//
// Client calls: UpdatePod, SyncKnownPods (output KnownPods), Query (output
// Answer; the eight query methods), KillPodNowDone (killPodNow's wait,
// output Answer: completed or timed out; the kill itself is an UpdatePod
// with a CompletionID). Effects fired by the implementation: CompletionFired
// (a kill's CompletedCh) and CancelFired (a sync context's cancellation).
// Worker callbacks: SyncBegin and SyncEnd for SyncPod, SyncTerminatingPod,
// SyncTerminatingRuntimePod and SyncTerminatedPod.
//
// Recording contract: a client call's interval is its call and return; a
// fire is a point at the Fire; SyncBegin and SyncEnd may be points at the
// callback's entry and return. Pods carry a Version that identifies their
// content, so a callback can be matched with the update it consumed.
//
// # Nondeterminism: observed steps plus hidden worker steps
//
// Step applies one observed operation and is deterministic given the state
// and the observation (one exception: a terminal-phase pod first seen with
// CacheUnknown may start in D or in TR, §1.4 step 2). The worker's critical
// sections between callbacks are not observed, so the model applies them as
// hidden steps (worker.go): take the pending update (startPodSync, including
// the static start decision and unstarted cleanup), abort the pass when the
// runtime status cannot be read, acknowledge termination, apply a returned
// outcome. When they happened is genuinely unknown and it matters — an
// update landing just before or just after the take is delivered now or
// next time — so Closure keeps every possibility and PorcupineModel is a
// porcupine.NondeterministicModel over single States. A deterministic,
// lazier encoding was considered and rejected: it has to guess which later
// observation forces which order (e.g. a query between the take and the
// acknowledgement), and guesses there produce false alarms.
//
// Effects that the implementation performs inside the critical section that
// caused them — firing a completion, cancelling a sync in progress — are
// obligations (State.Due): until they are observed, no other step under the
// pod lock (client calls, hidden steps) may happen. Callback entry/return
// and killPodNow's wait do not take the lock and may interleave. Cancelling
// an idle worker's context is allowed, not required (State.MayCancel), right
// after the step that requested termination or shortened the grace.
//
// # Partitions and the witness fast path
//
// Partition splits a history by pod UID; static pods sharing a full name
// share a part, and SyncKnownPods is copied into every part restricted to
// its UIDs. Replay checks a totally ordered history (the simulation knows
// the order in which operations took effect) part by part in linear time:
// ok means linearizable; not ok means only that this order is not a
// linearization, and porcupine decides.
//
// # Fixed behaviour (BUGS.md G1–G4)
//
// Completions fire on every finalisation path: a kill on a finished pod or
// any dropped update fires at once (unless the pod is terminating, when it
// waits), unstarted static cleanup and the purge of an unstarted orphan fire
// what waits (G1, G2). Unstarted cleanup acknowledges termination, so
// ShouldPodContainersBeTerminating agrees with ShouldPodRuntimeBeRemoved
// (G3). Orphan driving in SyncKnownPods cancels the sync in progress (G4).
//
// # Invariants covered
//
// The model rejects histories violating S1–S11, S13–S19 of SPEC §3.1 as far
// as the recorded operations show them (S3 and S11 including their
// cancellation clauses, S14 in its strict form). S12 only in part: every
// call receives the pending update or a replay, never a superseded one; that
// the last call after quiescence saw the newest version needs an
// end-of-history check. Left to other oracles: liveness L1–L8 (the model
// accepts a history that stops anywhere, including a worker that never
// applies an outcome), the kubelet-level K1–K5, timing (backoff, jitter,
// killPodNow's timeout value), status functions and mirror pods.
//
// # Where SPEC.md is ambiguous, and what the model does
//
//   - S3 "no SyncPod begins after the kill returned": a worker may take the
//     update before the kill and enter SyncPod after it (upstream does, the
//     window of B16). Legal here iff the take preceded the kill and the
//     context was cancelled.
//   - The grace given to SyncTerminatingPod: upstream passes the taken
//     update's value, an implementation may read the record's at the
//     acknowledgement; both are accepted (both are the effective grace at
//     some instant of the pass), nothing else.
//   - Natural completion (completeSync) sets no grace upstream; S11 wants
//     one ≥1, so the model uses the newest known spec's effective grace.
//     Orphan driving uses the last consumed pod's, or 1 (§1.12).
//   - A static pod first seen terminal with an idle runtime is in D but never
//     started; §1.8/§1.10 read literally refuse to start a static pod whose
//     termination is requested, so it is cleaned up with no call at all
//     (§1.2 says "only SyncTerminatedPod runs"; that holds for non-static
//     pods).
//   - Static wait list on UID reuse: a UID leaves the list when it starts,
//     finishes or is purged, so a re-created UID queues at its new arrival
//     (S15: arrival order of the incarnation's first update); upstream's
//     lazy pruning could keep an older position.
//   - Completion of a dropped update (create while terminating, non-kill
//     runtime update): waits for termination if the pod is terminating,
//     else fires at once.
//   - SyncKnownPods' HasConfig/Static come from the last consumed update, or
//     the pending one only if nothing was consumed (literal §1.12 step 3).
//   - A deletion timestamp arriving after termination was requested does
//     not set deleted (literal §1.4 step 6), so content is not removed.
//   - SyncEnd(canceled) is accepted whether or not the context fired, and
//     acts like an error; a cancellation with no cause is rejected.
//   - SyncKnownPods copied into partitions may linearize at different
//     instants in different parts: porcupine can only accept more, never
//     reject a linearizable history. Replay over one global order is exact.
package model
