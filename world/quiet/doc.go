// Package quiet is the settle phase's early end: the reasoning by which the
// simulated kubelet (package world) stops watching a run once it is
// provably quiescent — every later tick would change nothing — with the
// verdict the full phase would give (run's TestQuietSettleSameVerdict runs
// every family both ways and compares).
//
// Most of a seed's cost is the settle phase: SettleTime of virtual time in
// which housekeeping and the sync loop keep ticking although, in most runs,
// nothing is left to do after a few seconds. A housekeeping tick in the
// settle phase finds the world still when, at the end of this tick and of
// the previous one,
//
//   - no goroutine stirs (sim.Scheduler.Stirring) but the world's periodic
//     daemons (tickers): no worker is runnable, in a runtime call (a timer)
//     or waiting for a lock, no killPodNow is waiting for its timeout;
//   - no actor reports itself busy (World.Busy): no killPodNow is in
//     progress, the kubelet's actors have nothing left to do;
//   - the work queue holds no entry for a pod in config (such an entry
//     becomes an UpdatePod later; entries of other pods are dropped),
//     unless that UpdatePod can only repeat (resync.go, static.go) or falls
//     due after the settle phase's end;
//
// and between the two ticks the only input was this tick's SyncKnownPods
// (no UpdatePod, kill or restart; queries change nothing), which returned
// what the previous one did. Then nothing can happen any more but the same
// housekeeping tick with the same result, and sync-loop ticks that find
// nothing to do. The world is quiescent once every tick has found it still
// for the world's QuietFor: the liveness oracle excuses an obligation
// younger than RetryWithin when the inputs stop (QuiesceAt), so the inputs
// must not stop before every obligation that arose before the stillness is
// that old.
//
// A world that is idle but not still, because the queue holds resyncs
// that may end their pods (natural completion), cannot end early; its
// daemons sleep from an idle tick to the earliest entry's due time
// (idle.go), which moves the schedule stream.
//
// The package is pure bookkeeping and predicates: a Watch follows the
// world's inputs and sync calls (its Note methods) and, at each
// housekeeping tick of the settle phase (Tick), reads what it needs of the
// world through the World interface — facts only, the scheduler's and the
// pod workers' reads among them in the order the argument needs them. It
// runs no simulation operation of its own and knows no World type.
package quiet
