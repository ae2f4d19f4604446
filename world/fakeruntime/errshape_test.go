package fakeruntime

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/podsim/podsim/model/ops"
	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/sim"
	"github.com/podsim/podsim/workers"
)

// TestFailureShapes: a failed call's error is drawn from the fault stream
// only when the plan asks for shapes (otherwise the plain ErrTransient,
// with no draw, so other families' runs keep their bytes); every choice 0
// is the plain error; each drawn error holds what the world records for
// it — network not ready, the earliest BackoffError expiry — as a walk of
// its tree (wrappers, joins, both aggregate kinds) finds them, with the
// coverage marks of its shape.
func TestFailureShapes(t *testing.T) {
	off := &Runtime{S: sim.New(sim.Options{}), Draw: sim.NewReplay(nil)}
	if err := off.failure("a"); err != ErrTransient || off.Draw.(*sim.Replay).Exhausted() != 0 {
		t.Errorf("shapes off: got %v after %d draws, want ErrTransient and no draw", err, off.Draw.(*sim.Replay).Exhausted())
	}
	const s = time.Second
	cases := []struct {
		name      string
		choices   []int
		nnr       bool
		backoff   time.Duration // expiry from now; -1: none
		marks     []string
		unwrapper bool // the top error has Unwrap (false: a kube aggregate)
	}{
		{"choice 0: the plain error", nil, false, -1, nil, false},
		{"network not ready", []int{packPlain, 1}, true, -1, []string{plan.MarkErrNetworkNotReady}, false},
		{"wrapped twice, a backoff within the resync interval", []int{packWrapped, 2, 4, 1}, false, 25 * s,
			[]string{plan.MarkErrBackoffPending, plan.MarkErrWrapped}, true},
		{"kube aggregate of two backoffs: the earliest", []int{packKube, 0, 2, 6, 3, 3}, false, 3 * s,
			[]string{plan.MarkErrBackoffPending, plan.MarkErrKubeAggregate, plan.MarkErrEarliestOfMany}, false},
		{"aggregate: network not ready beside an expired backoff", []int{packAggregate, 0, 1, 2, 0}, true, -5 * s,
			[]string{plan.MarkErrNetworkNotReady, plan.MarkErrAggregate}, true},
		{"joined: a plain error and two backoffs", []int{packJoined, 2, 0, 2, 0, 3, 5}, false, -5 * s,
			[]string{plan.MarkErrBackoffExpired, plan.MarkErrJoined, plan.MarkErrEarliestOfMany}, true},
		{"wrapped aggregate, a backoff beyond the resync interval", []int{packNested, 0, 0, 3, 6}, false, 100 * s,
			[]string{plan.MarkErrBackoffClamped, plan.MarkErrWrapped}, true},
		{"a backoff ending now", []int{packPlain, 2, 1}, false, 0, []string{plan.MarkErrBackoffExpired}, false},
	}
	for _, c := range cases {
		r := &Runtime{S: sim.New(sim.Options{}), Draw: sim.NewReplay(c.choices), Faults: plan.Faults{ErrorShapes: true}}
		err := r.failure("a")
		gotShape, gotMarks := r.TakeErrShape("a")
		want := ops.ErrShape{NetworkNotReady: c.nnr, Backoff: c.backoff != -1}
		if want.Backoff {
			want.BackoffExpiry = c.backoff
		}
		if gotShape != want || !slices.Equal(gotMarks, c.marks) {
			t.Errorf("%s: recorded %+v %v, want %+v %v", c.name, gotShape, gotMarks, want, c.marks)
		}
		if seen := walkShape(err, r.S.Now()); seen != want {
			t.Errorf("%s: the error %q holds %+v, the world recorded %+v", c.name, err, seen, want)
		}
		if _, ok := err.(interface{ Unwrap() error }); c.unwrapper && !ok {
			if _, ok := err.(interface{ Unwrap() []error }); !ok {
				t.Errorf("%s: %T has no Unwrap", c.name, err)
			}
		}
		if c.choices == nil && err != ErrTransient {
			t.Errorf("%s: got %v, want ErrTransient", c.name, err)
		}
		if again, marks := r.TakeErrShape("a"); again != (ops.ErrShape{}) || marks != nil {
			t.Errorf("%s: the shape was not forgotten once taken: %+v %v", c.name, again, marks)
		}
	}
}

// walkShape finds in err's tree what the requeue rule reads, by the
// errors package's own Unwrap conventions and apimachinery's Errors().
func walkShape(err error, now time.Time) ops.ErrShape {
	var s ops.ErrShape
	var walk func(error)
	walk = func(e error) {
		if strings.Contains(e.Error(), "network is not ready") {
			s.NetworkNotReady = true
		}
		var b *workers.BackoffError
		if errors.As(e, &b) && e == error(b) {
			if at := b.Expiry.Sub(now); !s.Backoff || at < s.BackoffExpiry {
				s.Backoff, s.BackoffExpiry = true, at
			}
		}
		switch x := e.(type) {
		case interface{ Unwrap() []error }:
			for _, m := range x.Unwrap() {
				walk(m)
			}
		case interface{ Errors() []error }:
			for _, m := range x.Errors() {
				walk(m)
			}
		case interface{ Unwrap() error }:
			walk(x.Unwrap())
		}
	}
	if err != nil {
		walk(err)
	}
	return s
}
