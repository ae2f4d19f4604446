package safety

import (
	"reflect"
	"testing"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/model/ops"
)

// TestFollowAtStageZeroIsStill: step moves the repeat memo past every
// event but a release exactly as calling follow at every such event would,
// though it calls follow only past stage 0, and a repeated SyncKnownPods
// release is still skipped. It fails when step leaves follow out at a
// stage that moves (say at stage 1: the memo never reaches the skip).
func TestFollowAtStageZeroIsStill(t *testing.T) {
	probe := &history.Probe{PodsSynced: true}
	const hk = "housekeeping"
	pod := ops.Pod{UID: "a", Version: 1}
	type e struct {
		kind history.EventKind
		g    string
		id   int
		in   ops.Input
		out  ops.Output
	}
	syncKnown := func(id int) []e {
		return []e{{history.ClientCall, hk, id, ops.SyncKnownPods{}, nil}, {history.LockAcquired, hk, 0, nil, nil},
			{history.LockReleasing, hk, 0, nil, nil}, {history.ClientReturn, hk, id, nil, ops.KnownPods{}}}
	}
	var stream []e
	stream = append(stream, syncKnown(1)...)
	stream = append(stream, syncKnown(2)...) // a repeat: skipped
	stream = append(stream, e{history.ClientCall, "client/1", 3, ops.UpdatePod{Type: ops.Create, Pod: pod}, nil},
		e{history.LockAcquired, "client/1", 0, nil, nil}, e{history.LockReleasing, "client/1", 0, nil, nil},
		e{history.ClientReturn, "client/1", 3, nil, nil})
	stream = append(stream, syncKnown(4)...) // not a repeat: a UID was tracked since
	stream = append(stream, syncKnown(5)...) // …but this one is
	o := newSafetyOracle()
	for i, x := range stream {
		ev := &history.Event{Seq: int64(i + 1), Goroutine: x.g, Kind: x.kind, ID: x.id, Input: x.in, Output: x.out}
		if x.kind == history.LockReleasing {
			ev.Probe = probe
			o.Observe(nil, ev)
			continue
		}
		want := o.repeat
		want.follow(ev)
		o.Observe(nil, ev)
		if !reflect.DeepEqual(o.repeat, want) {
			t.Fatalf("event %d (%v by %s): memo %+v, following every event gives %+v", ev.Seq, ev.Kind, ev.Goroutine, o.repeat, want)
		}
	}
	if got := o.repeat.skipped; got != 2 {
		t.Fatalf("%d repeated releases skipped, want 2", got)
	}
}
