package liveness

import (
	"errors"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/model"
	"github.com/podsim/podsim/oracle"
)

// killNow scripts killPodNow on pod a: the kill, then the wait, which
// returns ok at d after it began; the completion fires at fire (<0: never).
func (s *lvScript) killNow(fire, d time.Duration, ok bool) {
	s.update(model.Create, "a", lvStates{"a": lvRunning})
	s.sync("a", model.SyncPod, model.OK)
	kill := model.UpdatePod{Type: model.Kill, Pod: model.Pod{UID: "a"}, Kill: model.KillOptions{CompletionID: 1}}
	s.ids++
	s.emit("client/1", history.ClientCall, s.ids, kill, nil)
	s.emit("client/1", history.LockAcquired, 0, nil, nil)
	s.v.answers["a"] = lvRequested
	s.emit("client/1", history.ClientReturn, s.ids, nil, nil)
	s.ids++
	wait := s.ids
	s.emit("client/1", history.ClientCall, wait, model.KillPodNowDone{UID: "a", ID: 1}, nil)
	s.emit("client/1", history.LockReleasing, 0, nil, nil)
	start := s.at
	if fire >= 0 {
		s.at = start + fire
		s.emit("worker/a", history.Fired, 0, model.CompletionFired{UID: "a", ID: 1}, nil)
	}
	s.at = start + d
	s.emit("client/1", history.ClientReturn, wait, nil, model.Answer(ok))
}

// TestLivenessScriptedKillPodNow: L6 from the stream alone, when the
// completion fired before the timeout but the wait reported an error.
func TestLivenessScriptedKillPodNow(t *testing.T) {
	s := time.Second
	tests := []struct {
		name       string
		fire, wait time.Duration
		ok         bool
		want       string // "" for none
	}{
		{"fired, then timed out", s, 10 * s, false, "its completion fired at 1s, within its timeout"},
		{"fired at the deadline, timed out", 10 * s, 10 * s, false, ""},
		{"never fired, timed out", -1, 10 * s, false, ""},
		{"fired, returned nil", s, s, true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sc := newLvScript()
			sc.killNow(tt.fire, tt.wait, tt.ok)
			vs := sc.settle(lvFinal(lvSyncing))
			v, found := lvFind(vs, "L6")
			switch {
			case tt.want == "" && len(vs) != 0:
				t.Errorf("got violations %v, want none", vs)
			case tt.want != "" && (!found || !strings.Contains(v.Message, tt.want)):
				t.Errorf("got violations %v, want L6 containing %q", vs, tt.want)
			}
			if tt.want == "" && sc.l.checked["L6"] != 1 {
				t.Errorf("got %d L6 checks, want 1", sc.l.checked["L6"])
			}
		})
	}
}

// TestLivenessScriptedEnd: the verdicts on the end of a run alone — the
// final record of pod a (static in config when static is set) and the
// static exclusion state.
func TestLivenessScriptedEnd(t *testing.T) {
	web := "p_default"
	tests := []struct {
		name   string
		rec    *oracle.PodState // nil: no record
		static *oracle.StaticState
		stale  bool // the final state is older than the last event
		want   string
		msg    string
	}{
		{name: "running pod in config is settled", rec: &lvSyncing},
		{name: "sync still in flight", rec: &oracle.PodState{UID: "a", State: "S", Started: true, HasWorker: true, InFlight: true},
			want: "L3", msg: "a sync call is still in flight 5s after the inputs stopped"},
		{name: "working with nothing to do", rec: &oracle.PodState{UID: "a", State: "S", Started: true, HasWorker: true, Working: true},
			want: "L3", msg: "working is still set with no update pending or in flight"},
		{name: "no worker", rec: &oracle.PodState{UID: "a", State: "S", Started: true},
			want: "L3", msg: "it has no worker goroutine"},
		{name: "waiting static pod without its update", rec: &oracle.PodState{UID: "a", State: "P", HasWorker: true},
			static: &oracle.StaticState{Started: "b", Waiting: []types.UID{"a"}},
			want:   "L3", msg: "the update that would start it was lost (#116995)"},
		{name: "started entry of a finished pod", rec: &lvComplete, static: &oracle.StaticState{Started: "a"},
			want: "L5", msg: "static p_default: the started entry names pod a, which finished"},
		{name: "started entry of a forgotten pod", static: &oracle.StaticState{Started: "b"},
			want: "L5", msg: "the started entry names pod b, which the pod workers no longer know"},
		{name: "started entry of a running pod", rec: &lvSyncing, static: &oracle.StaticState{Started: "a"}},
		{name: "not quiescent", rec: &lvSyncing, stale: true, want: "L3", msg: "not quiescent: 1 events happened"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sc := newLvScript()
			sc.v.cfg["a"] = oracle.PodConfig{InConfig: true, Static: tt.static != nil, FullName: web}
			f := lvFinal()
			if tt.rec != nil {
				f = lvFinal(*tt.rec)
			}
			if tt.static != nil {
				f.Static[web] = *tt.static
			}
			sc.v.fin = f
			sc.seq++
			if !tt.stale {
				f.Seq = sc.seq
			}
			sc.emit("driver", history.Settled, 0, nil, nil)
			vs := sc.l.Finish(nil, nil)
			v, found := lvFind(vs, tt.want)
			switch {
			case tt.want == "" && len(vs) != 0:
				t.Errorf("got violations %v, want none", vs)
			case tt.want != "" && (!found || !strings.Contains(v.Message, tt.msg)):
				t.Errorf("got violations %v, want %s containing %q", vs, tt.want, tt.msg)
			}
		})
	}
}

// TestLivenessUnsettled: a run that never settled is judged on nothing,
// and says so unless the scheduler already failed it.
func TestLivenessUnsettled(t *testing.T) {
	sc := newLvScript()
	if vs := sc.l.Finish(nil, nil); len(vs) != 1 || vs[0].Invariant != "settle" {
		t.Errorf("no Settled: got %v, want one settle violation", vs)
	}
	sc = newLvScript()
	if vs := sc.l.Finish(nil, errors.New("fake runtime: transient CRI error")); len(vs) != 0 {
		t.Errorf("no Settled after a run error: got %v, want none (the error is the verdict)", vs)
	}
	sc = newLvScript()
	if vs := sc.settle(nil); len(vs) != 1 || vs[0].Invariant != "settle" {
		t.Errorf("Settled without a final state: got %v, want one settle violation", vs)
	}
	sc.emit("client/0", history.ClientCall, 1, model.UpdatePod{Pod: model.Pod{UID: "a"}}, nil)
	if len(sc.l.pods) != 0 {
		t.Errorf("after Settled: got %d tracked pods, want 0 (events after Settled are ignored)", len(sc.l.pods))
	}
}

// TestPodTrackWords: the words the messages are made of — a pod's state
// from its answers, and what became of a sync function.
func TestPodTrackWords(t *testing.T) {
	p := newPodTrack("a")
	states := []struct {
		a    oracle.Answers
		want string
	}{
		{lvForgotten, "unknown"}, {lvFinished, "F"}, {lvTerminated, "D"},
		{oracle.Answers{Known: true, TerminationRequested: true, ContainersBeTerminating: true}, "T"},
		{lvRequested, "TR"}, {lvRunning, "P"},
	}
	for _, tt := range states {
		if got := p.state(tt.a); got != tt.want {
			t.Errorf("state(%+v): got %s, want %s", tt.a, got, tt.want)
		}
	}
	l := newLiveness(kubeletPeriods)
	p.begin(l, model.SyncPod, history.Event{})
	p.end(model.SyncEnd{UID: "a", Fn: model.SyncPod, Outcome: model.OK}, time.Second)
	if got := p.state(lvRunning); got != "S" {
		t.Errorf("state after a SyncPod: got %s, want S", got)
	}
	stories := []struct {
		do   func()
		fn   model.SyncFn
		want string
	}{
		{func() {}, model.SyncTerminatedPod, "SyncTerminatedPod never ran"},
		{func() { p.begin(l, model.SyncTerminatedPod, history.Event{}) },
			model.SyncTerminatedPod, "SyncTerminatedPod ran once, the last is still in flight"},
		{func() {}, model.SyncPod, "SyncPod ran once, the last succeeded at 1s"},
		{func() {
			for range 2 {
				p.begin(l, model.SyncTerminatingRuntimePod, history.Event{})
				p.end(model.SyncEnd{Fn: model.SyncTerminatingRuntimePod, Outcome: model.Canceled}, 2*time.Second)
			}
		}, model.SyncTerminatingPod, "SyncTerminatingRuntimePod ran 2 times, the last was cancelled at 2s, and it never succeeded"},
	}
	for _, tt := range stories {
		tt.do()
		if got := p.story(tt.fn); got != tt.want {
			t.Errorf("story(%s): got %q, want %q", tt.fn, got, tt.want)
		}
	}
}
