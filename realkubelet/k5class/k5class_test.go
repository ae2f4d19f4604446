package k5class

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/kubernetes/pkg/kubelet"
	kubecontainer "k8s.io/kubernetes/pkg/kubelet/container"
	kubetypes "k8s.io/kubernetes/pkg/kubelet/types"
)

// scenario: a kill of pod a (runtime-only or with the pod), then a fresh
// ADD during the shutdown (or not) with its termination requested (or
// not), admitted (or rejected), a status pass that drops its terminal
// status (or not), and a SyncPod of a pod first added in the shutdown.
type scenario struct {
	runtimeOnly, shutdown, requested, admitted, dropped, addedInShutdown bool
}

func (c scenario) class(t *testing.T) string {
	t.Helper()
	var e Evidence
	e.Reset()
	o := kubelet.UpdatePodOptions{UpdateType: kubetypes.SyncPodKill, Pod: &v1.Pod{}}
	if c.runtimeOnly {
		o.Pod, o.RunningPod = nil, &kubecontainer.Pod{ID: "a"}
	}
	e.NoteKill("a", o)
	asked := 0
	skip := e.Admitting("a", c.shutdown, func() bool { asked++; return c.requested })
	if want := map[bool]int{true: 1, false: 0}[c.shutdown]; asked != want {
		t.Errorf("%+v: asked the pod workers %d time(s), want %d", c, asked, want)
	}
	e.Admitted("a", c.admitted, skip, false)
	e.StatusPass([]types.UID{"a"}, func() {}, func(types.UID) bool { return c.dropped })
	e.SyncPodNoted("a", 7, c.addedInShutdown)
	return e.Class(7)
}

// TestPredicates: each predicate holds only with every part of it; GI
// needs the dropped status that GH does not, and neither holds for a pod
// first added before the shutdown, nor for an ADD admission did not skip.
func TestPredicates(t *testing.T) {
	gh := scenario{runtimeOnly: true, shutdown: true, requested: true, admitted: true, addedInShutdown: true}
	gi := scenario{shutdown: true, requested: true, admitted: true, dropped: true, addedInShutdown: true}
	for _, c := range []struct {
		s    scenario
		want string
	}{
		{gh, "GH"},
		{func() scenario { s := gh; s.dropped = true; return s }(), "GH"},
		{func() scenario { s := gh; s.requested = false; return s }(), ""},
		{func() scenario { s := gh; s.shutdown = false; return s }(), ""},
		{func() scenario { s := gh; s.admitted = false; return s }(), ""},
		{func() scenario { s := gh; s.addedInShutdown = false; return s }(), ""},
		{gi, "GI"},
		{func() scenario { s := gi; s.dropped = false; return s }(), ""},
		{func() scenario { s := gi; s.requested = false; return s }(), ""},
		{func() scenario { s := gi; s.admitted = false; return s }(), ""},
		{func() scenario { s := gi; s.addedInShutdown = false; return s }(), ""},
	} {
		if got := c.s.class(t); got != c.want {
			t.Errorf("%+v: class %q, want %q", c.s, got, c.want)
		}
	}
}

// TestNoKillNoAsk: without a kill of the UID nothing is skipped, and the
// pod workers are not asked.
func TestNoKillNoAsk(t *testing.T) {
	var e Evidence
	e.Reset()
	if s := e.Admitting("a", true, func() bool { t.Fatal("asked"); return true }); s != (Skip{}) {
		t.Errorf("skip %+v with no kill", s)
	}
}

// TestRejectionClearsDropped: a rejection after a dropped status puts a
// new Failed status in, so GI needs another drop.
func TestRejectionClearsDropped(t *testing.T) {
	var e Evidence
	e.Reset()
	e.NoteKill("a", kubelet.UpdatePodOptions{UpdateType: kubetypes.SyncPodKill, Pod: &v1.Pod{}})
	e.StatusPass([]types.UID{"a"}, func() {}, func(types.UID) bool { return true })
	e.Admitted("a", false, Skip{}, false)
	e.Admitted("a", true, e.Admitting("a", true, func() bool { return true }), false)
	e.SyncPodNoted("a", 1, true)
	if c := e.Class(1); c != "" {
		t.Errorf("class %q after a rejection cleared the drop, want none", c)
	}
}
