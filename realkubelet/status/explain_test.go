package status

import (
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/podsim/podsim/model/ops"
)

// TestStatusPredicatesAreExact: GG and GF hold exactly for their own
// situation and not for look-alikes (a terminal phase written over a
// non-terminal one; a delete without an earlier TerminatePod; a
// TerminatePod of the current record). GF takes a new record that began
// SyncPod, or none yet, as well (the flag is the earlier record's).
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
		terminate, gone, restart bool
		fn                       ops.SyncFn
	}
	for _, c := range []struct {
		name  string
		steps []step
		want  string
	}{
		{"new incarnation terminating", []step{{terminate: true}, {fn: ops.SyncTerminatingPod}}, "GF"},
		{"new incarnation started containers", []step{{terminate: true}, {gone: true}, {fn: ops.SyncPod}, {fn: ops.SyncTerminatingPod}}, "GF"},
		{"new record, no callback yet", []step{{terminate: true}, {gone: true}}, "GF"},
		{"no earlier TerminatePod", []step{{fn: ops.SyncPod}, {fn: ops.SyncTerminatingPod}}, ""},
		{"no earlier TerminatePod, record gone", []step{{fn: ops.SyncTerminatingPod}, {gone: true}, {fn: ops.SyncTerminatingPod}}, ""},
		{"same incarnation, TerminatePod only", []step{{fn: ops.SyncTerminatingPod}, {terminate: true}}, ""},
		{"same record, SyncPod after TerminatePod", []step{{terminate: true}, {fn: ops.SyncPod}}, ""},
		{"TerminatePod again in the new incarnation", []step{{terminate: true}, {fn: ops.SyncTerminatingPod}, {terminate: true}}, ""},
		{"TerminatePod again in the new record", []step{{terminate: true}, {gone: true}, {terminate: true}}, ""},
		{"TerminatePod before a kubelet restart", []step{{terminate: true}, {restart: true}, {gone: true}, {fn: ops.SyncTerminatingPod}}, ""},
		{"new record before a kubelet restart", []step{{terminate: true}, {gone: true}, {restart: true}}, ""},
		{"TerminatePod after a kubelet restart", []step{{restart: true}, {terminate: true}, {gone: true}}, "GF"},
	} {
		e := newStatusEvidence()
		for _, s := range c.steps {
			switch {
			case s.terminate:
				e.terminated("a")
			case s.gone:
				e.recordGone("a")
			case s.restart:
				e.restart()
			default:
				e.began("a", s.fn)
			}
		}
		if got := e.classFinalDelete("a"); got != c.want {
			t.Errorf("%s: classFinalDelete = %q, want %q", c.name, got, c.want)
		}
	}
}
