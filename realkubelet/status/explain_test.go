package status

import (
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/podsim/podsim/model/ops"
)

// TestStatusPredicatesAreExact: GG and GF hold exactly for their own
// situation and not for look-alikes (a terminal phase written over a
// non-terminal one; a stale delete after the new incarnation started
// containers; a delete without an earlier TerminatePod).
func TestStatusPredicatesAreExact(t *testing.T) {
	for _, c := range []struct {
		from, to v1.PodPhase
		want     string
	}{{v1.PodFailed, v1.PodSucceeded, "GG"}, {v1.PodSucceeded, v1.PodFailed, "GG"},
		{v1.PodRunning, v1.PodSucceeded, ""}, {v1.PodPending, v1.PodFailed, ""}, {"", v1.PodFailed, ""}} {
		if got := classPhaseWritten(c.from, c.to); got != c.want {
			t.Errorf("classPhaseWritten(%s→%s) = %q, want %q", c.from, c.to, got, c.want)
		}
	}
	type step struct {
		terminate bool
		fn        ops.SyncFn
	}
	for _, c := range []struct {
		name  string
		steps []step
		want  string
	}{
		{"new incarnation terminating", []step{{terminate: true}, {false, ops.SyncTerminatingPod}}, "GF"},
		{"new incarnation started containers", []step{{terminate: true}, {false, ops.SyncPod}, {false, ops.SyncTerminatingPod}}, ""},
		{"no earlier TerminatePod", []step{{false, ops.SyncPod}, {false, ops.SyncTerminatingPod}}, ""},
		{"same incarnation, TerminatePod only", []step{{false, ops.SyncTerminatingPod}, {terminate: true}}, ""},
		{"TerminatePod again in the new incarnation", []step{{terminate: true}, {false, ops.SyncTerminatingPod}, {terminate: true}}, ""},
	} {
		e := newStatusEvidence()
		for _, s := range c.steps {
			if s.terminate {
				e.terminated("a")
			} else {
				e.began("a", s.fn)
			}
		}
		if got := e.classFinalDelete("a"); got != c.want {
			t.Errorf("%s: classFinalDelete = %q, want %q", c.name, got, c.want)
		}
	}
}
