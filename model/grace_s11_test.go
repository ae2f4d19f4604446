package model

import (
	"testing"

	"github.com/podsim/podsim/model/ops"
)

// TestGraceNeverIncreasesAfterForceDelete: an explicit 0 is a value, not
// "unset" (S11). Found by podsim itself: the simulated world ran a force
// delete followed by a kill with an override while SyncTerminatingPod was
// in flight, and the model (then following §1.7's steps literally) expected
// the grace to rise from 1 to 10 and the kill to be cancelled.
func TestGraceNeverIncreasesAfterForceDelete(t *testing.T) {
	forceDeleted := ops.Pod{UID: "a", SpecGrace: 30, HasDeletionGrace: true, DeletionGrace: 0}
	override := func(v int64) ops.KillOptions { return ops.KillOptions{HasGraceOverride: true, GraceOverride: v} }
	cases := []struct {
		name          string
		current       int64
		kill          ops.KillOptions
		wantGrace     int64
		wantShortened bool
	}{
		{"first computation: deletion 0 then override 10", 0, override(10), 1, false},
		{"terminating at 1, then a kill with override 10", 1, override(10), 1, false},
		{"terminating at 1, then a kill with override 0", 1, override(0), 1, false},
	}
	for _, c := range cases {
		grace, shortened := effectiveGrace(c.current, forceDeleted, c.kill)
		if grace != c.wantGrace || shortened != c.wantShortened {
			t.Errorf("%s: got (%d, %v), want (%d, %v)", c.name, grace, shortened, c.wantGrace, c.wantShortened)
		}
	}
}
