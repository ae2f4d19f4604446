package fakeclock

import (
	"fmt"
	"slices"
	"testing"
	"time"
)

// TestScheduleFirerIsSchedule: a timer armed in the caller's memory
// (ScheduleFirer) takes its place in the firing order, stops and re-arms as
// one Schedule made, and a zero timer beside it stays untouched.
func TestScheduleFirerIsSchedule(t *testing.T) {
	r := newRecorder()
	var held struct {
		before int
		t      Timer
		after  int
	}
	r.c.Schedule(time.Second, r.fn("A"))
	r.c.ScheduleFirer(&held.t, time.Second, firer{r.fn("B")})
	r.c.Schedule(time.Second, r.fn("C"))
	r.c.Advance(time.Second)
	if held.t.Reset(time.Second) {
		t.Errorf("Reset of a fired timer reported it active")
	}
	r.c.Schedule(time.Second, r.fn("D"))
	r.c.Advance(2 * time.Second)
	if want := []string{"A@1s", "B@1s", "C@1s", "B@2s", "D@2s"}; !slices.Equal(r.got, want) {
		t.Errorf("fired %v, want %v", r.got, want)
	}
	held.t.Reset(time.Second)
	if !held.t.Stop() || held.t.Stop() {
		t.Errorf("Stop of an armed ScheduleFirer timer: want true, then false")
	}
	if held.before != 0 || held.after != 0 {
		t.Errorf("ScheduleFirer wrote beside its timer: %d, %d", held.before, held.after)
	}
}

// firer is a Firer that runs f.
type firer struct{ f func() }

func (h firer) Fire() { h.f() }

// TestScheduleFirerAndNewIn: a clock made in the caller's memory (NewIn)
// with a small room for its heap reads the epoch and orders more timers
// than the room holds as New's does, a ScheduleFirer timer among them
// calling its Firer in its place and re-arming as any timer.
func TestScheduleFirerAndNewIn(t *testing.T) {
	var room [2]*Timer
	c := NewIn(&Clock{}, room[:0])
	r := &recorder{c: c}
	if !c.Now().Equal(Epoch()) {
		t.Fatalf("NewIn's clock reads %v, want the epoch", c.Now())
	}
	var held Timer
	for i := range 5 {
		r.c.Schedule(time.Duration(5-i)*time.Second, r.fn(fmt.Sprint("T", 5-i)))
	}
	c.ScheduleFirer(&held, 3*time.Second, firer{r.fn("F")})
	c.Advance(5 * time.Second)
	held.Reset(time.Second)
	c.Advance(time.Second)
	want := []string{"T1@1s", "T2@2s", "T3@3s", "F@3s", "T4@4s", "T5@5s", "F@6s"}
	if !slices.Equal(r.got, want) {
		t.Errorf("fired %v, want %v", r.got, want)
	}
}
