package fakeruntime

import (
	"errors"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/model/ops"
	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/sim"
	"github.com/podsim/podsim/workers"
)

// fnObserver checks that every callback's CallInfo.Fn is the callback its
// fn names, at its beginning and its end.
type fnObserver struct {
	t     *testing.T
	calls []string
}

func (o *fnObserver) CallBegin(fn string, _ types.UID, c CallInfo) { o.check("begin", fn, c) }

func (o *fnObserver) CallEnd(fn string, _ types.UID, c CallInfo, _ error, _ bool) {
	o.check("end", fn, c)
}

func (o *fnObserver) check(at, fn string, c CallInfo) {
	if c.Fn.String() != fn {
		o.t.Errorf("%s of %s: CallInfo.Fn is %v", at, fn, c.Fn)
	}
	o.calls = append(o.calls, fn)
}

// TestCallInfoNamesItsCallback: the world reads a callback's ops.SyncFn
// from CallInfo.Fn, not from its name; each of the four callbacks sets
// the Fn its name says.
func TestCallInfoNamesItsCallback(t *testing.T) {
	s := sim.New(sim.Options{})
	defer s.Close()
	r := NewRuntime(s, sim.NewPCG(1), plan.Faults{})
	o := &fnObserver{t: t}
	r.Observer = o
	pod := &v1.Pod{ObjectMeta: metav1.ObjectMeta{UID: "a"}}
	s.Go("caller", func() {
		_, err1 := r.SyncPod(nil, workers.SyncPodCreate, pod, nil, nil)
		err2 := r.SyncTerminatingPod(nil, pod, nil, 1, nil)
		err3 := r.SyncTerminatingRuntimePod(nil, &workers.RunningPod{ID: "a"})
		err4 := r.SyncTerminatedPod(nil, pod, nil)
		if err := errors.Join(err1, err2, err3, err4); err != nil {
			t.Error(err)
		}
	})
	if err := s.Run(); err != nil {
		t.Fatal(err)
	}
	if len(o.calls) != 8 {
		t.Fatalf("observed %v, want each of the four callbacks begin and end", o.calls)
	}
}

// TestMustNameStopsAnUnnamedCall: a CallInfo whose Fn is unset or names
// another callback stops the run; the one fn names passes.
func TestMustNameStopsAnUnnamedCall(t *testing.T) {
	panics := func(c CallInfo, fn string) (p bool) {
		defer func() { p = recover() != nil }()
		c.MustName(fn)
		return false
	}
	if panics(CallInfo{Fn: ops.SyncTerminatedPod}, "SyncTerminatedPod") {
		t.Error("a call named as it is was stopped")
	}
	if !panics(CallInfo{}, "SyncPod") || !panics(CallInfo{Fn: ops.SyncPod}, "SyncTerminatingPod") {
		t.Error("a call with Fn unset or another callback's passed")
	}
}
