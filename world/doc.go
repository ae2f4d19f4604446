// Package world is the simulated kubelet, the first target: podsim's pod
// workers (package workers) on the seeded scheduler (package sim), with the
// kubelet's actors around them — the config source, admission, the status
// manager and its API server (graceful deletion, unique names, the grace
// reaper), housekeeping, the work queue, eviction, node shutdown and
// kubelet restarts — and a fake runtime with faults (package
// world/fakeruntime, which the world observes). It runs a plan.Plan, emits
// history.Events to its observers (each release of the pod lock carries
// what the pod workers' queries answer then: package world/probe) and
// offers the oracles a read-only oracle.View (view.go); it imports no
// oracle.
//
// After the plan, the settle phase (settle.go) heals the injected errors
// and lets time pass so that whatever must eventually happen has; it ends
// early, with the same verdict, once the world is quiescent
// (settle_quiet.go; the reasoning is package world/quiet). The catalogued
// kubelet bugs are switches of the world itself (KubeletBugs, mutants.go);
// the workers' own are in workers/mutants.
package world
