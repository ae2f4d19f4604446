package liveness

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/model/ops"
	"github.com/podsim/podsim/oracle"
)

// killNow scripts killPodNow on pod a: the kill, then the wait, which
// returns ok at d after it began; the completion fires at fire (<0: never).
// The pod then terminates and finishes.
func (s *lvScript) killNow(fire, d time.Duration, ok bool) {
	s.update(ops.Create, "a", lvStates{"a": lvRunning})
	s.sync("a", ops.SyncPod, ops.OK)
	kill := ops.UpdatePod{Type: ops.Kill, Pod: ops.Pod{UID: "a"}, Kill: ops.KillOptions{CompletionID: 1}}
	s.ids++
	s.emit("client/1", history.ClientCall, s.ids, kill, nil)
	s.emit("client/1", history.LockAcquired, 0, nil, nil)
	s.v.answers["a"] = lvRequested
	s.emit("client/1", history.ClientReturn, s.ids, nil, nil)
	s.ids++
	wait := s.ids
	s.emit("client/1", history.ClientCall, wait, ops.KillPodNowDone{UID: "a", ID: 1}, nil)
	s.emit("client/1", history.LockReleasing, 0, nil, nil)
	start := s.at
	if fire >= 0 {
		s.at = start + fire
		s.emit("worker/a", history.Fired, 0, ops.CompletionFired{UID: "a", ID: 1}, nil)
	}
	s.at = start + d
	s.emit("client/1", history.ClientReturn, wait, nil, ops.Answer(ok))
	s.terminateAndFinish("a")
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
			vs := sc.settle()
			v, found := lvFind(vs, "L6")
			switch {
			case tt.want == "" && len(vs) != 0:
				t.Errorf("got violations %v, want none", vs)
			case tt.want != "" && (!found || !strings.Contains(v.Message, tt.want)):
				t.Errorf("got violations %v, want L6 containing %q", vs, tt.want)
			}
			if tt.want == "" && Checked(sc.l)["L6"] != 1 {
				t.Errorf("got %d L6 checks, want 1", Checked(sc.l)["L6"])
			}
		})
	}
}

// The end of a run judged from the stream alone (L3, L5): each situation's
// stream, then Settled. Pods a, b and c are static pods of full name
// web_default when static is set.
type lvEnd struct {
	name   string
	static bool
	stream func(s *lvScript)
	want   string // "" for none
	msg    string
	// checked: with no violation wanted, the obligation found met.
	checked string
}

// static pods a, b, c: a runs; b waits for the name; a is killed and,
// unless hold, finishes at 3s.
func (s *lvScript) staticChain(hold bool) {
	s.update(ops.Create, "a", lvStates{"a": lvRunning})
	s.sync("a", ops.SyncPod, ops.OK)
	s.at = time.Second
	s.update(ops.Create, "b", lvStates{"b": lvRunning})
	s.at = 2 * time.Second
	s.update(ops.Kill, "a", lvStates{"a": lvRequested})
	if hold {
		return
	}
	s.at = 3 * time.Second
	s.terminateAndFinish("a")
}

var livenessEnd = []lvEnd{{
	name: "running pod in config is settled",
	stream: func(s *lvScript) {
		s.update(ops.Create, "a", lvStates{"a": lvRunning})
		s.sync("a", ops.SyncPod, ops.OK)
	},
	checked: "L3",
}, {
	name: "sync still in flight",
	stream: func(s *lvScript) {
		s.update(ops.Create, "a", lvStates{"a": lvRunning})
		s.emit("worker/a", history.CallbackBegin, 0, ops.SyncBegin{UID: "a", Fn: ops.SyncPod}, nil)
	},
	want: "L3", msg: "state S: a sync call (SyncPod) is still in flight 5s after the inputs stopped",
}, {
	name: "update handed over and never taken",
	stream: func(s *lvScript) {
		s.update(ops.Create, "a", lvStates{"a": lvRunning})
		s.sync("a", ops.SyncPod, ops.OK)
		s.at = time.Second
		s.update(ops.Update, "a", nil)
	},
	want: "L3", msg: "state S: an update (update, at 1s, 1 update(s)) is pending but was never consumed",
}, {
	name: "update handed over and taken",
	stream: func(s *lvScript) {
		s.update(ops.Create, "a", lvStates{"a": lvRunning})
		s.sync("a", ops.SyncPod, ops.OK)
		s.at = time.Second
		s.update(ops.Update, "a", nil)
		s.sync("a", ops.SyncPod, ops.OK)
	},
	checked: "L3",
}, {
	// A runtime-only kill marks the record seen at runtime: when it is left
	// unfinished the story is its termination (L1), not an unstarted orphan
	// housekeeping should have purged (L2).
	name: "orphan seen at runtime whose termination never succeeds",
	stream: func(s *lvScript) {
		s.call("housekeeping", ops.UpdatePod{Type: ops.Kill, RuntimeOnly: true, Pod: ops.Pod{UID: "a"}}, nil, lvStates{"a": lvRequested})
		s.syncKnown([]string{}, ops.KnownPods{{UID: "a", State: ops.TerminatingWork}}, nil)
		s.sync("a", ops.SyncTerminatingRuntimePod, ops.Failed)
	},
	want: "L1", msg: "termination requested at 0s, state TR; SyncTerminatingRuntimePod ran once, the last failed",
}, {
	name: "static waiter killed and never cleaned up (B8)", static: true,
	stream: func(s *lvScript) {
		s.staticChain(true)
		s.update(ops.Kill, "b", lvStates{"b": lvRequested})
	},
	want: "L5", msg: "pod b (static web_default, in config): killed at 2s while waiting to start (state TR), but it never finished",
}, {
	name: "static waiter killed and cleaned up with no call", static: true,
	stream: func(s *lvScript) {
		s.staticChain(false)
		s.update(ops.Kill, "b", lvStates{"b": lvRequested})
		s.call("worker/b", nil, nil, lvStates{"b": lvFinished})
	},
	checked: "L5",
}, {
	name: "no pod holds the name and the waiter never started", static: true,
	stream: func(s *lvScript) { s.staticChain(false) },
	want:   "L5", msg: "pod b (static web_default): waiting to start since 1s (state P, the first of 1 waiter(s)); " +
		"no pod of the name holds it and nothing has changed among them since 3s, when pod a last changed",
}, {
	name: "the waiter started once the name was free", static: true,
	stream: func(s *lvScript) {
		s.staticChain(false)
		s.sync("b", ops.SyncPod, ops.OK)
	},
	checked: "L5",
}, {
	name: "a killed waiter does not block the next (B8's fix)", static: true,
	stream: func(s *lvScript) {
		s.staticChain(true)
		s.update(ops.Create, "c", lvStates{"c": lvRunning})
		s.update(ops.Kill, "b", lvStates{"b": lvRequested})
		s.call("worker/b", nil, nil, lvStates{"b": lvFinished})
		s.at = 3 * time.Second
		s.terminateAndFinish("a")
		s.sync("c", ops.SyncPod, ops.OK)
	},
	checked: "L5",
}, {
	name: "the killed waiter blocks the next (B8)", static: true,
	stream: func(s *lvScript) {
		s.staticChain(false)
		s.update(ops.Create, "c", lvStates{"c": lvRunning})
		s.update(ops.Kill, "b", lvStates{"b": lvRequested})
	},
	want: "L5", msg: "pod c (static web_default): waiting to start since 3s (state P, the first of 1 waiter(s))",
}, {
	name: "a waiter blocked by a pod that never finishes is not blamed", static: true,
	stream: func(s *lvScript) { s.staticChain(true) },
	want:   "L1", msg: "pod a (static web_default, in config): termination requested at 2s, state TR",
}}

// TestLivenessScriptedEnd: the verdicts on the end of a run (L3 and L5),
// from the stream alone: each bad stream is reported with the message
// wanted, each good one passes having met the obligation.
func TestLivenessScriptedEnd(t *testing.T) {
	for _, tt := range livenessEnd {
		t.Run(tt.name, func(t *testing.T) {
			sc := newLvScript()
			for _, uid := range []types.UID{"a", "b", "c"} {
				sc.v.cfg[uid] = oracle.PodConfig{InConfig: true, Static: tt.static, FullName: "web_default"}
			}
			tt.stream(sc)
			vs := sc.settle()
			found := slices.ContainsFunc(vs, func(v history.Violation) bool {
				return v.Invariant == tt.want && strings.Contains(v.Message, tt.msg)
			})
			switch {
			case tt.want == "" && len(vs) != 0:
				t.Errorf("got violations %v, want none", vs)
			case tt.want != "" && !found:
				t.Errorf("got violations %v, want %s containing %q", vs, tt.want, tt.msg)
			case tt.want == "" && Checked(sc.l)[tt.checked] == 0:
				t.Errorf("got 0 %s obligations met, want some (checked: %v)", tt.checked, sc.l.checked)
			case tt.want == "L1":
				for _, other := range []string{"L5", "L2"} {
					if v, ok := lvFind(vs, other); ok {
						t.Errorf("got %v, want no %s: the story is the termination", v, other)
					}
				}
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
	sc.emit("driver", history.Settled, 0, nil, nil)
	if vs := sc.l.Finish(nil, nil); len(vs) != 1 || vs[0].Invariant != "settle" {
		t.Errorf("Settled without the settle phase's timing: got %v, want one settle violation", vs)
	}
	sc.emit("client/0", history.ClientCall, 1, ops.UpdatePod{Pod: ops.Pod{UID: "a"}}, nil)
	if sc.l.pods.Len() != 0 {
		t.Errorf("after Settled: got %d tracked pods, want 0 (events after Settled are ignored)", sc.l.pods.Len())
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
	p.begin(l, ops.SyncPod, &history.Event{})
	p.end(ops.SyncEnd{UID: "a", Fn: ops.SyncPod, Outcome: ops.OK}, time.Second)
	if got := p.state(lvRunning); got != "S" {
		t.Errorf("state after a SyncPod: got %s, want S", got)
	}
	stories := []struct {
		do   func()
		fn   ops.SyncFn
		want string
	}{
		{func() {}, ops.SyncTerminatedPod, "SyncTerminatedPod never ran"},
		{func() { p.begin(l, ops.SyncTerminatedPod, &history.Event{}) },
			ops.SyncTerminatedPod, "SyncTerminatedPod ran once, the last is still in flight"},
		{func() {}, ops.SyncPod, "SyncPod ran once, the last succeeded at 1s"},
		{func() {
			for range 2 {
				p.begin(l, ops.SyncTerminatingRuntimePod, &history.Event{})
				p.end(ops.SyncEnd{Fn: ops.SyncTerminatingRuntimePod, Outcome: ops.Canceled}, 2*time.Second)
			}
		}, ops.SyncTerminatingPod, "SyncTerminatingRuntimePod ran 2 times, the last was cancelled at 2s, and it never succeeded"},
	}
	for _, tt := range stories {
		tt.do()
		if got := p.story(tt.fn); got != tt.want {
			t.Errorf("story(%s): got %q, want %q", tt.fn, got, tt.want)
		}
	}
}
