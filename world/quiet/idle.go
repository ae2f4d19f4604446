package quiet

// Idle ticks of a settle phase that cannot end early. With natural
// completion on (the fake runtime's TerminalRate), a running pod's next
// resync may end it, so its queued entry keeps the world from being
// still (resync.go proves repeats only when the runtime can only repeat),
// and the settle phase waits for the resyncs, a minute apart, or its full
// SettleTime. Between two resyncs nothing happens: the sync loop finds no
// entry due, the status manager nothing to write or echo, housekeeping's
// SyncKnownPods returns what it did. Those idle ticks were most of the
// kubelet families' steps (swarm, eviction-wait, rejected-admission,
// error-shapes). So a housekeeping tick of the settle phase that finds the
// world idle, at its end and at the end of the tick before,
//
//   - nothing stirs but the world's periodic daemons and no actor is busy
//     (the calm check's first two conditions, whatever the queue holds),
//   - the only input between the two ticks was this tick's SyncKnownPods,
//     which returned what the previous one did,
//
// lets the daemons sleep (NextTick) to their first tick at or after the
// earliest work-queue entry's due time: the sync loop hands that entry
// out on the tick it would have ticking, and every daemon that ticks at
// that moment ticks then. Nothing can happen in between: nothing stirs,
// no actor works, no entry falls due, and the skip never reaches the end
// of the settle phase (skip.go says why).
//
// What moves. The skipped ticks' scheduling points drew from the schedule
// stream: the daemons wake together (the sync loop and the status manager
// every second, housekeeping every two), and a scheduling point with more
// than one goroutine runnable draws its choice. The pod workers' jitter
// (the resync interval's) draws from the same stream, so after a skip the
// next resync is requeued with another jitter, and later runtime calls may
// come in another order and take other fault draws. Each skipped run is a
// run the code can make (the skipped ticks change nothing but the stream's
// position), but not the seed's ticking run: its trace, steps and time
// differ, and its coverage may. The evidence is therefore statistical
// (TestIdleTicksSkipped in package run: the same verdict for every
// family's seeds, the detection of every catalogued mutant with the
// shortcuts forced on). A mutant's runs, which the gate and the regression
// scripts pin down, keep every tick (World.AsWritten), as for every other
// shortcut.

// skipIdle runs at an idle housekeeping tick that the queue keeps busy:
// the daemons skip to the earliest entry's due time.
func (q *Watch) skipIdle() {
	if !q.mayskip() || q.Rules.TickIdle {
		return
	}
	until := q.nextDue
	if q.Rules.CarelessIdle {
		until = q.settleEnd - 1
	}
	if until < q.settleEnd {
		q.skipUntil = until
	}
}
