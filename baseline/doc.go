// Package baseline holds, in its tests, the upstream way of testing pod
// lifecycle code — the same workers on real goroutines, locks and timers,
// random sleeps, -race — run side by side with the gate (make baseline),
// so podsim's advantage is measured rather than claimed.
package baseline
