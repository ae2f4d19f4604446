package run

import (
	"testing"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/oracle"
)

// namedObserver is an observer known by its name.
type namedObserver struct{ name string }

func (*namedObserver) Observe(oracle.View, *history.Event) {}

// TestFanoutLists: each kind's list holds the observers that read it, in
// their order, and a fanout set again with other observers (one replaced,
// the count the same) lists those, while one set again with the same keeps
// its lists.
func TestFanoutLists(t *testing.T) {
	a, b, c := &namedObserver{"a"}, &namedObserver{"b"}, &namedObserver{"c"}
	names := func(os []observer) (s string) {
		for _, o := range os {
			s += o.(*namedObserver).name
		}
		return s
	}
	var f fanout
	f.set([]listed{{a, everyKind}, {b, oracle.KindsOf(history.Noted)}})
	if got := names(f.of[history.Noted]) + "/" + names(f.of[history.LockAcquired]); got != "ab/a" {
		t.Fatalf("lists noted/lock %q, want ab/a", got)
	}
	first := &f.of[history.Noted][0]
	f.set([]listed{{a, everyKind}, {b, oracle.KindsOf(history.Noted)}})
	if &f.of[history.Noted][0] != first {
		t.Error("the same observers built the lists again")
	}
	f.set([]listed{{a, everyKind}, {c, oracle.KindsOf(history.Noted)}})
	if got := names(f.of[history.Noted]); got != "ac" {
		t.Errorf("after another observer, the noted list is %q, want ac: the lists of the observers before were kept", got)
	}
	f.set([]listed{{a, everyKind}, {c, oracle.KindsOf(history.LockAcquired)}})
	if got := names(f.of[history.Noted]) + "/" + names(f.of[history.LockAcquired]); got != "a/ac" {
		t.Errorf("after other kinds, lists noted/lock %q, want a/ac", got)
	}
}
