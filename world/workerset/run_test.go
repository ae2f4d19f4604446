package workerset

import (
	"reflect"
	"testing"
)

// TestStartRunRenew: Start records a live goroutine and hands out its
// body: f, then the goroutine removed and Ended called with it. Renew
// makes a zero set but for Ended and its runs: the next run's Start hands
// out the same memory, set whole (nothing of the run before left).
func TestStartRunRenew(t *testing.T) {
	var s Set
	var ended []string
	s.Ended = func(g *Goroutine) { ended = append(ended, g.Name) }
	ran := 0
	a := s.Start("worker/a", 0, "a", 5, func() { ran++ })
	b := s.Start("worker/b", 1, "b", 6, func() {})
	if len(s.Live) != 2 || s.Live[0] != &a.Goroutine || a.Started != 0 || b.Started != 1 || b.Since != 6 || a.Doing != "not yet run" {
		t.Fatalf("started: live %v, a %+v, b %+v", s.Live, a.Goroutine, b.Goroutine)
	}
	a.What, a.Doing = "signal", "waiting"
	a.Body()
	if ran != 1 || len(s.Live) != 1 || s.Live[0] != &b.Goroutine || !reflect.DeepEqual(ended, []string{"worker/a"}) {
		t.Fatalf("after a's body: ran %d, live %v, ended %v", ran, s.Live, ended)
	}
	s.Renew()
	if s.Ended == nil || len(s.Live) != 0 || s.Started != 0 || s.Draining || s.AllEnded != nil {
		t.Fatalf("renewed: %+v", s)
	}
	c := s.Start("worker/c", 0, "c", 7, func() {})
	if c != a || c.Goroutine != (Goroutine{Name: "worker/c", UID: "c", Doing: "not yet run", Since: 7}) {
		t.Errorf("after Renew: run %p (first %p), %+v", c, a, c.Goroutine)
	}
}
