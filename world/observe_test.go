package world

import (
	"reflect"
	"slices"
	"testing"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/model/ops"
)

// TestEventFields: emit and note write the world's event (World.out) field
// by field, over whatever the event before left there, and deliverOut
// stamps it: each event handed out is the event a fresh literal would
// make. Fails when emit leaves the note or the probe of the event before,
// when note leaves an input, and when history.Event gains a field the
// sends do not write (this list must change with it).
func TestEventFields(t *testing.T) {
	var fields []string
	for f := range reflect.TypeFor[history.Event]().Fields() {
		fields = append(fields, f.Name)
	}
	if want := []string{"Seq", "Step", "At", "Goroutine", "Kind", "ID", "Input", "Output", "Note", "Probe"}; !slices.Equal(fields, want) {
		t.Fatalf("history.Event has the fields %v, emit and note write %v", fields, want)
	}
	w := seedWorld(t, "early-kill", "", 1)
	defer w.S.Close()
	var got history.Event
	w.ObserveEvent(func(ev *history.Event) { got = *ev })
	left := history.Event{Seq: 7, Step: 8, At: 9, Goroutine: "g", Kind: history.LockReleasing, ID: 3,
		Input: ops.Query{}, Output: ops.Answer(true), Note: history.Requeued{UID: "a"}, Probe: &history.Probe{}}
	sends := []struct {
		send func()
		want history.Event
	}{
		{func() { w.emit(history.ClientCall, 4, ops.Query{}, nil) }, history.Event{Kind: history.ClientCall, ID: 4, Input: ops.Query{}}},
		{func() { w.emit(history.ClientReturn, 5, nil, ops.Answer(false)) }, history.Event{Kind: history.ClientReturn, ID: 5, Output: ops.Answer(false)}},
		{func() { w.note(history.KubeletSettled{}) }, history.Event{Kind: history.Noted, Note: history.KubeletSettled{}}},
	}
	for i, s := range sends {
		w.out = left
		s.send()
		stamped := got
		stamped.Seq, stamped.Step, stamped.At, stamped.Goroutine = 0, 0, 0, ""
		if !reflect.DeepEqual(stamped, s.want) {
			t.Errorf("send %d over %+v: %+v, want %+v", i, left, got, s.want)
		}
	}
}

// TestEveryObserverSees: with one observer or three, each sees every
// event, in the order they were added (deliverOut calls a lone observer
// without its loop). Fails when the loop is skipped for several.
func TestEveryObserverSees(t *testing.T) {
	for _, n := range []int{1, 3} {
		w := seedWorld(t, "early-kill", "", 2)
		seen, order := make([]int, n), []int{}
		for i := range n {
			w.ObserveEvent(func(*history.Event) { seen[i]++; order = append(order, i) })
		}
		_ = w.Run()
		for i := range n {
			if seen[i] == 0 || seen[i] != seen[0] {
				t.Fatalf("%d observers: observer %d saw %d events, the first %d", n, i, seen[i], seen[0])
			}
		}
		for j, i := range order {
			if i != j%n {
				t.Fatalf("%d observers: call %d went to observer %d", n, j, i)
			}
		}
	}
}
