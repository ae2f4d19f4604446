// Package realkubelet runs podsim's scenario families and oracles against
// the real kubelet pod workers (k8s.io/kubernetes v1.36.3,
// pkg/kubelet/pod_workers.go), unmodified.
//
// # How the real code is reached
//
// Package podworkers pulls the unexported newPodWorkers and killPodNow
// by a go:linkname (why not a vendor overlay: its package doc), guarded
// by TestLinknameSignature.
//
// # Determinism: testing/synctest and gates
//
// A run lives in a synctest bubble. Every sync callback parks at a gate (a
// channel receive, durably blocking) until the driver releases it with an
// outcome, and the driver calls synctest.Wait after every step, so between
// steps no goroutine runs: the seed alone decides which step comes next
// (a plan action, the release of a parked callback, a work-queue tick,
// housekeeping). Where several workers wake at once (SyncKnownPods re-drives
// orphans) they run concurrently, but each only reaches its own gate; the
// driver records their callbacks in UID order. Time is the bubble's fake
// clock (it starts in 2000, never zero, as the workers require); the driver
// advances it by a fixed step. Work-queue delays are jittered by the
// workers with the global math/rand, so they are not kept (Queue).
//
// # Held wake-ups (hold-wakes)
//
// By default a worker reads its notification channel as soon as it is
// signalled, so after every step each woken worker has run up to its next
// gate. With the "hold-wakes" move (RunOptions.HoldWakes, -sweep.hold)
// upstream's own test hook podWorkers.workerChannelFn is set (through
// reflect and unsafe, refusing on drift, podworkers/hook.go) and the driver moves
// each signal from the channel to the worker loop in a step of its own
// ("wake <uid>"), so the seed also decides when a worker reads its channel
// — the delay a real goroutine has before it is scheduled. The sweep runs
// both modes.
//
// # Logind restarts (logind-restart)
//
// With the "logind-restart" move (RunOptions.LogindRestart, -sweep.logind,
// realrun --logind-restart; a kubelet from v1.37, built with the tag
// podsim_shutdownctx) the node shutdown manager runs its own Start, and
// logind restarts under it before its shutdown event: a reconnect that
// fails at the point the seed draws (the move's fail=), or none, then one
// that succeeds; P7 judges its connections and inhibit locks (package
// shutdown, restart.go and locks.go).
//
// # What the real code cannot be made to do
//
// The gates sit at callback boundaries and at channel reads, so
// interleavings inside the workers' own critical sections, or between
// startPodSync and the callback it leads to, cannot be produced (e.g. the
// B16 window "update taken before the kill, SyncPod entered after it"). The
// status read (GetNewerThan) never fails or blocks. The plan's clients are
// serialised in plan order: only client-versus-worker orders are explored.
// killPodNow is the real one, reached by a guarded go:linkname like
// newPodWorkers (podworkers/killnow.go); its kill is performed by the driver, with a
// completion channel the driver can watch and a relay to killPodNow's own.
//
// Per family (plan.Families):
//
//   - early-kill: without held wake-ups it degenerates into
//     kill-during-create (the worker is inside SyncPod when the kill comes);
//     with them the kill can land before the first take (P→T, no SyncPod).
//   - kill-during-create: fully; "slow" calls are calls left parked, and
//     IgnoreCancel decides whether a cancelled call returns canceled.
//   - update-storm: updates coalesce while the worker is parked in a
//     callback or, with held wake-ups, before it reads its channel.
//   - grace-shortening, static-fullname-chain, static-restart-same-uid,
//     force-delete-failing-terminate: fully, except that backoff and
//     resync delays are not honoured (a tick re-syncs every queued pod).
//   - orphan-runtime-pods: fully; the SPEC §1.17-5 window between
//     SyncKnownPods and the runtime kill is a single step here.
//   - swarm: every pod-worker action kind, with the limits above.
//   - rejected-admission, node-shutdown, shutdown-cancel, shutdown-groups,
//     shutdown-restart, eviction-wait, kubelet-restart-terminal-pods, recreate-same-name,
//     swarm-restart
//     (and the swarm's node-level half): with the status component
//     (package components, status.go; on by default) the real status manager
//     writes every non-static pod's phase to an API-server model
//     (apiserver/) and deletes it at the end, and the shared kubelet
//     oracle judges those writes (K2, K3, K6, L7); names are unique in the
//     API, so recreate-same-name's later creates are refused while the old
//     object exists. With the shutdown component (package actors, shutdown/)
//     Shutdown runs the real node shutdown manager with the plan's
//     priority groups, its kills through the real killPodNow parked until
//     a "deliver" move, its Admit rejecting creates during the shutdown,
//     and its notes judged by K5; a ShutdownCancel reaches its event loop
//     once the shutdown's processing returned (actors/cancel.go), and the
//     plan's next action waits for that in most runs; with the eviction
//     component (package actors, evictmgr/) Evict runs one turn of the
//     real eviction manager's loop
//     (synchronize, then the cleanup wait) under pressure the plan
//     controls. Admission for resources is not modelled (upstream's is a
//     *Kubelet method), Restart restarts the kubelet with the restart
//     component (restart.go; during a node shutdown, once its processing
//     ended, into a process whose manager is told nothing: actors/inherit.go),
//     and the rest of the plan's
//     Node (resources, grace reaper, echo lag) is ignored.
//
// Not covered: admission, the grace reaper,
// GetNewerThan errors (docs/real-kubelet.md, "What is real").
//
// # Checks
//
// The driver is a target of the shared oracles' shape: it emits
// history.Events (client calls, callback entry and return, completion and
// cancellation fires) and is an oracle.View (view.go: the query answers
// through the public query methods, the config source, the bubble's time;
// no Final snapshot and no Kubelet). The shared linearizability oracle
// (oracle/linearize) is fed the events as they happen and checks the
// history with the model (witness replay, then porcupine); package
// linjudge makes that the run's verdict (per kubelet process, judged
// again under the deviations the direct findings name). The step
// invariants and liveness are direct checks of the driver, for reasons
// checks.go gives (the shared safety oracle, measured on this target by
// TestSharedSafetySweep, needs pod-lock critical sections it cannot see):
// after every step the S9 query lattice, S7 (no running containers in the
// fake runtime once CouldHaveRunningContainers is false), S14, S3 (a
// parked SyncPod's context is cancelled once termination is requested; no
// SyncPod begins after it), S11 (grace never increases), S1, S13's premise
// (a kill leaves termination requested); at every status write of the
// status manager K7 (no terminal phase with the pod still ready) and K8
// (the kill's DisruptionTarget goes out with the terminal phase), at
// every eviction or shutdown kill K8's first half (its status function
// sets DisruptionTarget); after a settle phase: L1, L2, L3 (also: no
// manager still at work), L6, and of the components P5 (the kubelet's
// last phase and readiness reached the API) and P6 (each eviction turn
// evicted one pod that is not critical, if there was one). Findings are history.Violations; a direct finding names a known
// upstream deviation only through that deviation's exact predicate, and a
// run is explained only if the model with exactly the deviations its
// findings name accepts its history (package explain).
package realkubelet
