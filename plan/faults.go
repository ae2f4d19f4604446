package plan

import "time"

// Faults says how the fake runtime misbehaves. Rates are per mille (0 to
// 1000) and drawn per callback from the run's fault stream.
type Faults struct {
	ErrorRate    int           // a callback fails (transient CRI error)
	SlowRate     int           // a callback takes up to MaxDelay
	MaxDelay     time.Duration // bound on a slow call
	IgnoreCancel int           // a slow call does not return early when cancelled (kubelet's SyncPod, B16)
	TerminalRate int           // SyncPod reports natural completion (containers exited)
	// UncancellablePull is the B16 fault mode (#125050, #113606): a
	// SyncPod of a pod with no container running pulls images for this
	// long on a context that ignores cancellation, then starts the
	// containers, so a kill that lands during the pull waits the whole pull
	// (the kill-latency oracle, oracle/latency). 0: off. No family sets
	// it; the "B16" mutant does.
	UncancellablePull time.Duration
	// ErrorShapes: a failed callback's error takes one of the shapes the
	// pod workers' requeue rule tells apart (SPEC §1.8 step 5), drawn from
	// the fault stream: a plain error, the kubelet's network-not-ready
	// error or a BackoffError whose expiry is past, within the resync
	// interval or beyond it, alone or wrapped (%w), joined (errors.Join) or
	// in an aggregate (several BackoffErrors: the earliest counts). Off: an
	// error is always the plain one (and no shape is drawn). Only the
	// error-shapes family sets it.
	ErrorShapes bool `json:",omitempty"`
}
