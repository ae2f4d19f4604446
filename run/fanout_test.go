package run

import (
	"slices"
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

// kindsObserver is an oracle that reads only the kinds it is given.
type kindsObserver struct {
	namedObserver
	kinds oracle.Kinds
}

func (*kindsObserver) Finish(oracle.View, error) []history.Violation { return nil }
func (o *kindsObserver) Kinds() oracle.Kinds                         { return o.kinds }

// TestSetFromListsOnlyNewObservers: setFrom lists a run's observers only
// when they are not those it listed last. The same observers keep the
// lists; another timing oracle, another extra oracle or an epoch oracle
// replaced in the same array (a lane's epoch set) each make new lists
// with the new observer in them. It fails when setFrom compares the
// epoch set's array instead of its oracles, or leaves out a field.
func TestSetFromListsOnlyNewObservers(t *testing.T) {
	mk := func(name string) *kindsObserver {
		return &kindsObserver{namedObserver{name}, oracle.KindsOf(history.LockAcquired)}
	}
	var timing [5]oracle.Oracle
	for i := range timing {
		timing[i] = mk("t")
	}
	epoch := []oracle.Oracle{mk("e1"), mk("e2")}
	obs := observers{timing: timing, epochs: &epochOracles{cur: epoch}, marks: history.NewMarker(), extra: []oracle.Oracle{mk("x")}}
	var f fanout
	f.setFrom(&obs)
	first := &f.of[history.LockAcquired][0]
	has := func(o observer) bool {
		return slices.Contains(f.of[history.LockAcquired], o)
	}
	f.setFrom(&obs)
	if &f.of[history.LockAcquired][0] != first {
		t.Error("the same observers were listed again")
	}
	fresh := mk("new")
	obs.timing[2] = fresh
	f.setFrom(&obs)
	if !has(fresh) {
		t.Error("a new timing oracle is not in the lists")
	}
	fresh = mk("new epoch")
	epoch[1] = fresh // the same array, as a lane's set
	f.setFrom(&obs)
	if !has(fresh) {
		t.Error("an epoch oracle replaced in the same array is not in the lists")
	}
	fresh = mk("new extra")
	obs.extra = []oracle.Oracle{fresh}
	f.setFrom(&obs)
	if !has(fresh) {
		t.Error("a new extra oracle is not in the lists")
	}
	kube := mk("kube")
	obs.kube = kube
	f.setFrom(&obs)
	if !has(kube) {
		t.Error("the kubelet-level checks added are not in the lists")
	}
}
