package model

import (
	"testing"

	"github.com/podsim/podsim/model/ops"
)

// TestEffectiveGrace is SPEC §1.7 and Test_calculateEffectiveGracePeriod.
func TestEffectiveGrace(t *testing.T) {
	override := func(g int64) ops.KillOptions { return ops.KillOptions{GraceOverride: g, HasGraceOverride: true} }
	a := pod("a", 1)
	rows := []struct {
		name      string
		current   int64
		pod       ops.Pod
		kill      ops.KillOptions
		want      int64
		shortened bool
	}{
		{"spec 30 only", 0, a, ops.KillOptions{}, 30, false},
		{"deletion 5", 0, deleting(a, 5), ops.KillOptions{}, 5, false},
		{"override 2 with deletion 5", 0, deleting(a, 5), override(2), 2, false},
		{"deletion 0", 0, deleting(a, 0), ops.KillOptions{}, 1, false},
		{"override 0", 0, a, override(0), 1, false},
		{"spec 0 clamps", 0, ops.Pod{}, ops.KillOptions{}, 1, false},
		{"never increases: deletion 60 over 5", 5, deleting(a, 60), ops.KillOptions{}, 5, false},
		{"never increases: override 60 over 5", 5, a, override(60), 5, false},
		{"shortens: override 2 over 5", 5, a, override(2), 2, true},
		{"shortens: deletion 0 over 30", 30, deleting(a, 0), ops.KillOptions{}, 1, true},
		{"already 1, deletion 0", 1, deleting(a, 0), ops.KillOptions{}, 1, false},
	}
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			got, shortened := effectiveGrace(row.current, row.pod, row.kill)
			if got != row.want || shortened != row.shortened {
				t.Errorf("got (%d, %v), want (%d, %v)", got, shortened, row.want, row.shortened)
			}
		})
	}
}

// TestGraceReachesSyncTerminatingPod: the grace a SyncTerminatingPod call
// must receive after a sequence of updates (S11 first value and monotonic).
func TestGraceReachesSyncTerminatingPod(t *testing.T) {
	a := pod("a", 1)
	override := func(g int64) ops.UpdatePod {
		return killOpts(a, ops.KillOptions{GraceOverride: g, HasGraceOverride: true})
	}
	rows := []struct {
		name    string
		updates []ops.UpdatePod
		want    int64
	}{
		{"spec 30 only", []ops.UpdatePod{upd(ops.Kill, a)}, 30},
		{"deletion 5", []ops.UpdatePod{upd(ops.Update, deleting(a, 5))}, 5},
		{"override 2 with deletion 5", []ops.UpdatePod{killOpts(deleting(a, 5), ops.KillOptions{GraceOverride: 2, HasGraceOverride: true})}, 2},
		{"deletion 0", []ops.UpdatePod{upd(ops.Update, deleting(a, 0))}, 1},
		{"override 0", []ops.UpdatePod{override(0)}, 1},
		{"never increases", []ops.UpdatePod{upd(ops.Update, deleting(a, 5)), override(10), upd(ops.Update, deleting(a, 20))}, 5},
		{"shrinks", []ops.UpdatePod{upd(ops.Kill, a), override(10), upd(ops.Update, deleting(a, 3))}, 3},
	}
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			var seq []ops.Op
			for _, u := range row.updates {
				seq = append(seq, do(u))
			}
			states := mustRun(t, seq...)
			for _, g := range []int64{row.want - 1, row.want + 1, 30} {
				if g == row.want {
					continue
				}
				if _, err := Next(states, beginTerminating("a", 1, g), nil); err == nil {
					t.Errorf("grace %d accepted, want only %d", g, row.want)
				}
			}
			if _, err := Next(states, beginTerminating("a", 1, row.want), nil); err != nil {
				t.Errorf("grace %d rejected: %v", row.want, err)
			}
		})
	}
}

// TestGraceTakenOrAcknowledged: an update that shortens the grace between
// the take and the acknowledgement may or may not reach the call: either
// value is the effective grace at some point of the pass (upstream passes
// the taken update's value, our implementation the record's at ack).
func TestGraceTakenOrAcknowledged(t *testing.T) {
	a := pod("a", 1)
	start := mustRun(t, do(upd(ops.Kill, a)))
	var taken []State
	for _, s := range start {
		if f := s.Records["a"].Flight; f.Stage == Taken && !f.Acked {
			taken = append(taken, s)
		}
	}
	states, err := Next(taken, upd(ops.Update, deleting(a, 5)), nil)
	if err != nil {
		t.Fatal(err)
	}
	states, err = Next(states, ops.CancelFired{UID: "a"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range []int64{30, 5} {
		if _, err := Next(states, beginTerminating("a", 1, g), nil); err != nil {
			t.Errorf("grace %d rejected: %v", g, err)
		}
	}
	if _, err := Next(states, beginTerminating("a", 1, 7), nil); err == nil {
		t.Error("grace 7 accepted")
	}
}
