// Package model is the sequential reference specification of the kubelet's
// pod workers in porcupine's terms: the behaviour of docs/spec.md §1 (v1.36
// upstream minus the contract gaps of §1.17) as a pure step function over
// plain values. It is written from docs/spec.md alone and shares no code with
// package workers, so that it is a second, independent reading of the spec.
// It imports only the standard library, model/ops (the operation
// vocabulary, a leaf package) and model/deviation (the names of the
// upstream deviations a state can be started with, a leaf package).
//
// This package is the specification: operations (package model/ops,
// which every caller names as ops.UpdatePod and so on), state (state.go),
// and the step rules (step.go, update.go, worker.go, observe.go, known.go,
// grace.go), with Step, Closure and Next to apply them. Checking
// histories against it — partitioning, Replay and its witness walk, the
// porcupine adapters — is package model/check, which imports this one
// (never the other way).
//
// # Operations
//
// A failed runtime-status read after a take: StatusReadFailed (a point).
//
// Client calls: UpdatePod, SyncKnownPods (output KnownPods), Query (output
// Answer; the eight query methods), KillPodNowDone (killPodNow's wait,
// output Answer: completed or timed out; the kill itself is an UpdatePod
// with a CompletionID). Effects fired by the implementation: CompletionFired
// (a kill's CompletedCh) and CancelFired (a sync context's cancellation).
// Worker callbacks: SyncBegin and SyncEnd for SyncPod, SyncTerminatingPod,
// SyncTerminatingRuntimePod and SyncTerminatedPod. Optional marker:
// WorkerStep, a worker critical section (see "Witness mode" below).
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
// the static start decision and unstarted cleanup), acknowledge
// termination, apply a returned outcome (or end a pass whose runtime status
// read failed: that failure is an observed operation, StatusReadFailed, a
// point the target records at the failed read, and the only way a take is
// not followed by its call). When they happened is genuinely unknown and it matters — an
// update landing just before or just after the take is delivered now or
// next time — so Closure keeps every possibility and model/check's
// PorcupineModel is the powerset of this nondeterministic model
// (porcupine's NondeterministicModel construction, done by hand: a
// porcupine state is a ClosedSet). A deterministic, lazier encoding was
// considered and rejected: it has to guess which later observation forces which order
// (e.g. a query between the take and the acknowledgement), and guesses there
// produce false alarms. Witness mode is the exception where the recorder
// tells the model when the worker stepped.
//
// Effects that the implementation performs inside the critical section that
// caused them — firing a completion, cancelling a sync in progress — are
// obligations (State.Due): until they are observed, no other step under the
// pod lock (client calls, hidden steps) may happen. Callback entry/return
// and killPodNow's wait do not take the lock and may interleave. Cancelling
// an idle worker's context is allowed, not required (State.MayCancel), right
// after the step that requested termination or shortened the grace.
//
// # Witness mode: WorkerStep markers
//
// The simulation can see when a worker runs its hidden steps: each is a
// critical section of the worker goroutine. A history that carries a
// WorkerStep{UID} marker for each of them is checked in witness mode
// (model/check's Replay switches to it when the history holds at least one
// marker): hidden steps happen only at markers, so the checker steps one
// state per part — two after an operation with two outcomes (a terminal
// pod first seen with an unknown cache) — with Step and no closure at all.
//
// Recording contract for WorkerStep. Record one marker at every acquisition
// of the pod lock (podLock) by the worker goroutine worker/<uid>, at the
// acquisition, in effect order with the other operations: every critical
// section of the worker loop — startPodSync (whether it takes the pending
// update, cleans up a static pod that can never start, puts back one that
// cannot start yet, or finds nothing to do or its record gone),
// acknowledgeTerminating, and the section that applies a callback's outcome
// or a failed runtime-status read. Fires inside the section (completions
// made due by it) come after its marker. Mark every worker of the history
// or none. Acquisitions the worker goroutine makes inside a sync callback
// (a callback calling back into the pod workers) are client calls and are
// recorded as such; a marker recorded there as well does no harm. Leave out
// acquisitions by the goroutine of an earlier incarnation of the UID (a
// purged record's worker that exits after a new record for the UID exists)
// if the recorder can tell them apart; if it cannot, the misplaced marker
// can make model/check's Replay fail, never pass wrongly, and the caller
// falls back to Replay without markers or to porcupine.
//
// A marker applies whichever hidden step its UID's record enables: idle
// with an update it may take, the take (or the unstarted cleanup); after
// the take of a terminating pass, the acknowledgement; after a return (or a
// recorded StatusReadFailed), the outcome. It changes nothing
// when the record is idle with nothing it may take, inside a callback, or
// unknown. It is rejected while an obligation is due (it takes the lock)
// and between the acknowledgement and the terminating callback's entry (the
// worker calls it at once, §1.8 step 3). Witness mode only restricts when
// hidden steps happen, so it accepts a subset of what the closure accepts:
// ok still means linearizable. model/check's Partition drops markers
// (porcupine explores the hidden steps itself), so histories for porcupine
// may carry them or not; Next applies a marker like Step and closes the
// result as usual.
//
// # Mechanics
//
// The rules above live in state.go, update.go, worker.go, observe.go,
// known.go and grace.go. They are written once, as stepOn: one operation
// applied to a *State in place, with a second outcome written into storage
// the caller provides when there are two (forkInto: only the records are
// copied). Step is stepOn on a copy; model/check's witness walk calls it
// (PartOp.ApplyOn) on the one state per part it alone holds, so a long run
// allocates almost nothing. Rules that mostly read a record point at it
// (recordRef); the ones that run at almost every operation (UpdatePod, the
// worker's critical sections, callback entry and return) change it where
// it is (recordToChange: the records are made the state's own first, copy
// on write), the others copy it to change it and hand it to put by pointer
// (a Record is 200 bytes). What makes them fast is kept apart and does not
// change what they compute: storage.go and storage_static.go (records and
// lists as small sorted slices shared copy-on-write between states,
// searched by equality first while short; a state that the checker alone
// holds writes in place), hash.go (Equal and a mixing Hash), closure.go
// (closed sets of nodes that remember each state's hash and hidden
// successors, so a state an operation leaves unchanged is never
// re-explored; record arrays for the many states tried and dropped are lent
// from a pooled arena) and reject.go (rejections formatted only when read).
// The exported map views State.Records and State.Notify are filled in on
// the states the exported functions return, for tests and tools.
//
// # What the checker uses (checker.go, arena.go)
//
// model/check steps States in place and reuses their memory, which needs
// the copy-on-write layer above (State's unexported fields). That layer
// stays here, beside the State it describes, and the checker gets a small
// exported handle on it, each name documented as being for the checker:
// PartOp (an operation as one part sees it; Apply, and ApplyOn, the step
// in place), ClosedSet (a closed set: porcupine's state, and Replay's
// without markers), Reasons, State.Clone, Publish, Claim, Release and
// ReuseRecords (the copy-on-write marks), and Arena (the memory Replay
// lends its parts). Moving the layer to model/check instead would have
// meant exporting State's internals. ops.Pod.AppendFullName (for partition
// planning), State.Answer and State.KnownPods (what a query and
// SyncKnownPods return in a state, for generators of legal histories) are
// spec-level helpers exported for the same package. DescribeState and
// DescribeRecord stay here (ops.Describe renders an operation): the rules'
// rejections and the spec's tests render states with them. A reader of
// the specification can skip checker.go, arena.go, closure.go, storage.go,
// storage_static.go and hash.go.
//
// # Fixed behaviour (docs/bugs.md G1–G4)
//
// Completions fire on every finalisation path: a kill on a finished pod or
// any dropped update fires at once (unless the pod is terminating, when it
// waits), unstarted static cleanup and the purge of an unstarted orphan fire
// what waits (G1, G2). Unstarted cleanup acknowledges termination, so
// ShouldPodContainersBeTerminating agrees with ShouldPodRuntimeBeRemoved
// (G3). Orphan driving in SyncKnownPods cancels the sync in progress (G4).
//
// # Deviations: upstream's behaviour, switch by switch (package deviation)
//
// Deviations are named switches (package model/deviation), each turning
// one fixed rule back into upstream v1.36.3's: G1–G4 (the fixes above), GA
// (upstream's grace formula) and GC (worker-driven termination carries no
// grace; the documented difference M1 below is its consequence). A state
// carries the set it started with (InitialState, InitialClosedSetWith);
// model/check's ReplayWith and PorcupineModelWith check a history under a
// set. With no switch on — every simulated run — the rules are exactly the
// ones above. The real-kubelet driver uses them to explain its findings
// (docs/upstream-findings.md, "How every finding is classified").
//
// # Invariants covered
//
// The model rejects histories violating S1–S11, S13–S19 of SPEC §3.1 as far
// as the recorded operations show them (S3 and S11 including their
// cancellation clauses, S14 in its strict form). S12 only in part: every
// call receives the pending update or a replay, never a superseded one; that
// the last call after quiescence saw the newest version needs an
// end-of-history check. Left to other oracles: liveness L1–L9 (the model
// accepts a history that stops anywhere, including a worker that never
// applies an outcome), the kubelet-level K1–K5, timing (backoff, jitter,
// killPodNow's timeout value), status functions and mirror pods.
//
// # Where docs/spec.md is ambiguous, and what the model does
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
//   - Static wait list on UID reuse: the list is pruned lazily, as §1.10
//     and upstream do (a UID leaves it when it starts, or when a scan
//     skips it), so a purged and re-created UID keeps its older position.
//   - Completion of a dropped update (create while terminating, non-kill
//     runtime update): waits for termination if the pod is terminating,
//     else fires at once.
//   - SyncKnownPods' HasConfig/Static come from the last consumed update, or
//     the pending one only if nothing was consumed (literal §1.12 step 3).
//   - A deletion timestamp arriving after termination was requested does
//     not set deleted (literal §1.4 step 6), so content is not removed.
//   - SyncEnd(canceled) is accepted whether or not the context fired, and
//     acts like an error; a cancellation with no cause is rejected.
package model
