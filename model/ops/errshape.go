package ops

import (
	"fmt"
	"time"
)

// ErrShape is what a failed sync call's error holds that decides the pod
// workers' next requeue (SPEC §1.8 step 5), as the caller who made the
// error can see it anywhere in its tree (behind %w wrappers, inside
// errors.Join and aggregates). The zero value is an error of neither kind
// (and a call that did not fail).
type ErrShape struct {
	// NetworkNotReady: the kubelet's network-not-ready message is in the
	// error.
	NetworkNotReady bool
	// Backoff: a BackoffError is in the error; BackoffExpiry is the
	// earliest Expiry of them, as virtual time since the run's start.
	Backoff       bool
	BackoffExpiry time.Duration
}

func (e ErrShape) String() string {
	var s string
	if e.NetworkNotReady {
		s = " network-not-ready"
	}
	if e.Backoff {
		s += fmt.Sprintf(" backoff-until=%v", e.BackoffExpiry)
	}
	return s
}
