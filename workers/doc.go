// Package workers is podsim's own implementation of the kubelet's pod
// workers (pkg/kubelet/pod_workers.go), written from §1 of the project's
// specification (shared/docs/spec.md, beside the checkout): the per-pod state
// machine that serialises SyncPod, SyncTerminatingPod and
// SyncTerminatedPod, coalesces updates, makes kills sticky, shortens grace
// periods, excludes static pods by full name, handles UID reuse, orphans and
// runtime-only pods, and answers the lifecycle queries other kubelet
// components rely on. It is the code under test of podsim.
//
// It deliberately differs from upstream v1.36.3 in the four contract gaps of
// SPEC §1.17 (G1–G4 in docs/bugs.md): every kill completion Event fires on every
// finalisation path, exactly once; unstarted cleanup acknowledges
// termination; orphan driving cancels the in-flight sync. Each fix carries a
// comment naming its gap.
//
// # Concurrency and determinism contract
//
//   - All state lives under one lock, podLock (PodWorkers.podLock). Methods
//     and helpers whose names end in Locked require it; every other method
//     takes it. Sync callbacks and the runtime cache are called without it.
//   - Every goroutine, lock, wake-up, cancellation, wait, clock read and
//     random draw goes through the Runtime seam (seam.go). No file of the
//     package except runtime_real.go uses go statements, channels, select,
//     sync.Mutex and friends, time.Now/Sleep/timers, math/rand or context;
//     arch_test.go enforces it. So the simulated runtime can run the pod
//     workers one goroutine at a time in an order chosen by a seed.
//   - Names are stable and readable in traces: the goroutine worker/<uid>
//     (worker/<uid>#<n> for the n-th worker of a UID reused after a purge,
//     so an exiting old worker and its successor are told apart),
//     its wake-up updates/<uid>, the lock podLock, the work queue's lock
//     workQueue, cancellation Events cancel/<uid>#<n> (n counts the sync
//     contexts of the record) and killPodNow's completion Events
//     killed/<uid>. No name holds a pointer or an address.
//   - No map iteration order reaches behaviour or output: records are
//     visited in sorted UID order (SyncKnownPods, CheckInvariants, Shutdown,
//     snapshots), static full names in sorted order, queue entries by due
//     time then UID.
//   - There is no global mutable state; jitter is drawn only through
//     Runtime.Intn, so a run is a function of the runtime's choices.
//
// # Oracles
//
// Broken internal invariants found in-line panic with "workers: what:
// detail". CheckInvariantsLocked checks the record-level invariants and
// returns an *InvariantError naming the rule and the UID;
// CheckInvariantsOfLocked checks only the records a critical section
// touched, trusting the previous release's check for the rest (the
// simulated kubelet calls one of them before every release of podLock).
// PodState and PodStates give read-only snapshots for tests and narrated
// scripts.
//
// # Mutants
//
// Config.Mutants can re-introduce the catalogued bugs of docs/bugs.md (G1–G4,
// B1–B14) for podsim's regression gate; the zero value is the correct
// code, and only workers/mutants.Enable can set one (see that package and
// mutant_points.go). Each mutation point is marked "// mutant <id>:".
package workers
