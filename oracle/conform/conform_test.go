package conform

import (
	"errors"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/model/ops"
	"github.com/podsim/podsim/oracle"
	"github.com/podsim/podsim/plan"
)

// fakeView is a target's view the test sets by hand: the kubelet (nil
// when kube is false) and the config source.
type fakeView struct {
	kube       bool
	pods       map[types.UID]*oracle.KubeletPod
	shutdownAt time.Duration
	cancelled  bool // the manager read a cancellation of the shutdown begun at shutdownAt
}

func newView(kube bool) *fakeView {
	return &fakeView{kube: kube, pods: map[types.UID]*oracle.KubeletPod{}, shutdownAt: -1}
}

func (v *fakeView) pod(uid types.UID) *oracle.KubeletPod {
	if v.pods[uid] == nil {
		v.pods[uid] = &oracle.KubeletPod{Name: "pod-" + string(uid)}
	}
	return v.pods[uid]
}

func (v *fakeView) Settle() *oracle.Settle { return nil }
func (v *fakeView) Config(uid types.UID) oracle.PodConfig {
	p := v.pod(uid)
	return oracle.PodConfig{InConfig: p.InConfig, Rejected: p.Rejected, Terminal: p.Phase == v1.PodSucceeded || p.Phase == v1.PodFailed}
}
func (v *fakeView) Elapsed() time.Duration { return 0 }
func (v *fakeView) Kubelet() oracle.Kubelet {
	if !v.kube {
		return nil
	}
	return fakeKubelet{v}
}

type fakeKubelet struct{ v *fakeView }

func (k fakeKubelet) UIDs() []types.UID                   { return []types.UID{"a", "b", "c"} }
func (k fakeKubelet) Pod(uid types.UID) oracle.KubeletPod { return *k.v.pod(uid) }
func (k fakeKubelet) APIServer() bool                     { return true }
func (k fakeKubelet) ShutdownAt() time.Duration           { return k.v.shutdownAt }
func (k fakeKubelet) ShuttingDown() bool                  { return k.v.shutdownAt >= 0 && !k.v.cancelled }

// script feeds one oracle a history by hand.
type script struct {
	o       oracle.Oracle
	v       *fakeView
	seq     int64
	id      int
	next    int // the plan action the script is at
	created int // pod objects created (their creation order)
	p       plan.Plan
	// stuck: the view's admission does not follow the shutdown's notes
	// (note keeps it in step, as the world does, unless set).
	stuck bool
	// pinned: events happen at pinnedAt, not at the next action's time.
	pinned   bool
	pinnedAt time.Duration
}

func newScript(p plan.Plan, kube bool) *script {
	return &script{o: New(p), v: newView(kube), p: p}
}

func (s *script) ev(g string, ev history.Event) {
	if ev.Kind != history.Noted {
		s.seq++
	}
	ev.Seq, ev.Goroutine = s.seq, g
	ev.At = s.now()
	s.o.Observe(s.v, &ev)
}

// note is n in goroutine g; the view's admission closes as a shutdown
// begins and opens as its cancellation is read, unless s.stuck.
func (s *script) note(g string, n history.Note) {
	switch n.(type) {
	case history.ShutdownBegins:
		if !s.stuck {
			s.v.shutdownAt, s.v.cancelled = s.now(), false
		}
	case history.ShutdownCancelled:
		s.v.cancelled = s.v.cancelled || !s.stuck
	}
	s.ev(g, history.Event{Kind: history.Noted, Note: n})
}

// now is the events' time: the next plan action's, or pinnedAt.
func (s *script) now() time.Duration {
	if s.pinned {
		return s.pinnedAt
	}
	return s.p.Actions[min(s.next, len(s.p.Actions)-1)].At
}

// call is one call and its return in goroutine g.
func (s *script) call(g string, in ops.Input, out ops.Output) {
	s.id++
	s.ev(g, history.Event{Kind: history.ClientCall, ID: s.id, Input: in})
	s.ev(g, history.Event{Kind: history.ClientReturn, ID: s.id, Output: out})
}

// action brackets the next plan action of client/0 around body.
func (s *script) action(body func()) {
	s.note("client/0", history.ActionBegins{})
	body()
	s.note("client/0", history.ActionDone{})
	s.next++
}

func (s *script) verdict() []history.Violation { return s.o.Finish(s.v, nil) }

func pod(uid string, version int) ops.Pod {
	return ops.Pod{UID: uid, Name: "pod-" + uid, Namespace: "default", Version: version, SpecGrace: 30,
		Phase: ops.PhaseRunning}
}

func upd(t ops.UpdateType, p ops.Pod) ops.UpdatePod { return ops.UpdatePod{Type: t, Pod: p} }

func act(kind plan.ActionKind, uid string, at time.Duration) plan.Action {
	return plan.Action{At: at, Kind: kind, UID: types.UID(uid), SpecGrace: 30, Grace: -1, CPU: 1, Mem: 1}
}

// wantViolation checks that the verdict has one violation of invariant
// whose message contains every part.
func wantViolation(t *testing.T, got []history.Violation, invariant string, parts ...string) {
	t.Helper()
	for _, v := range got {
		ok := v.Invariant == invariant
		for _, p := range parts {
			ok = ok && strings.Contains(v.Message, p)
		}
		if ok {
			return
		}
	}
	t.Fatalf("want a %s violation containing %q, got %v", invariant, parts, got)
}

func wantNone(t *testing.T, got []history.Violation) {
	t.Helper()
	if len(got) > 0 {
		t.Fatalf("want no violation, got %v", got)
	}
}

// admitCreate is a Create action's body for a new pod the kubelet admits
// (into config and the API): the admission note, then the create.
func (s *script) admitCreate(uid string) {
	p := s.v.pod(types.UID(uid))
	s.admission(uid)
	p.InConfig, p.Admitted, p.InAPI = true, true, true
	s.created++
	p.Incarnation = s.created
	s.call("client/0", upd(ops.Create, pod(uid, 1)), nil)
}

// settleAt sends the kubelet's settle note at virtual time at.
func (s *script) settleAt(at time.Duration) {
	s.o.Observe(s.v, &history.Event{Seq: s.seq, At: at, Kind: history.Noted, Goroutine: "driver", Note: history.KubeletSettled{}})
}

// admission is the kubelet's admission of uid in client/0, counting the
// pods counted: its two notes.
func (s *script) admission(uid string, counted ...types.UID) {
	s.note("client/0", history.AdmissionBegins{})
	s.note("client/0", history.Admitted{UID: types.UID(uid), Counted: counted})
}

// errStop ends a script's run as failed: the end-of-run checks (every
// action carried out, every shutdown ended) are not judged.
var errStop = errors.New("stopped")
