package liveness

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/model/ops"
	"github.com/podsim/podsim/oracle"
)

// Scripted streams: the obligations that only broken pod workers break
// (a SyncKnownPods that keeps what it must purge, a purge of a running pod,
// a killPodNow that misses its completion, …) cannot be planted from
// outside the code under test, so the oracle is fed a synthetic event
// stream and a scripted view of the pod workers instead.

// lvView is an oracle.View set by the test: no kubelet around the pod
// workers, and only the answers the liveness oracle reads.
type lvView struct {
	answers map[types.UID]oracle.Answers
	st      *oracle.Settle
	cfg     map[types.UID]oracle.PodConfig
	at      time.Duration
}

func (v *lvView) Settle() *oracle.Settle                { return v.st }
func (v *lvView) Config(uid types.UID) oracle.PodConfig { return v.cfg[uid] }
func (v *lvView) Kubelet() oracle.Kubelet               { return nil }
func (v *lvView) Elapsed() time.Duration                { return v.at }

// kubeletPeriods are the kubelet's: a 10 s backoff (jittered ≤ 1.5×), a
// 1 s sync loop, 2 s housekeeping.
var kubeletPeriods = Periods{RetryWithin: 18 * time.Second, Resync: time.Minute, Housekeeping: 2 * time.Second,
	TakeKill: 18 * time.Second, TakeUpdate: 18 * time.Second}

// lvScript feeds the oracle a stream, advancing virtual time by hand.
type lvScript struct {
	l   *liveness
	v   *lvView
	seq int64
	at  time.Duration
	ids int
}

func newLvScript() *lvScript {
	return &lvScript{l: newLiveness(kubeletPeriods),
		v: &lvView{answers: map[types.UID]oracle.Answers{}, cfg: map[types.UID]oracle.PodConfig{}}}
}

type lvStates map[types.UID]oracle.Answers

// The answers of SPEC §1.14 per state (after the first SyncKnownPods).
var (
	lvRunning    = oracle.Answers{Known: true, CouldHaveRunning: true}
	lvRequested  = oracle.Answers{Known: true, CouldHaveRunning: true, TerminationRequested: true}
	lvTerminated = oracle.Answers{Known: true, KnownTerminated: true, TerminationRequested: true,
		ContainersBeTerminating: true, RuntimeBeRemoved: true}
	lvFinished = oracle.Answers{Known: true, KnownTerminated: true, BeFinished: true, TerminationRequested: true,
		ContainersBeTerminating: true, RuntimeBeRemoved: true}
	lvForgotten = oracle.Answers{BeFinished: true, ContainersBeTerminating: true, RuntimeBeRemoved: true, ContentBeRemoved: true}
)

func (s *lvScript) emit(g string, kind history.EventKind, id int, in ops.Input, out ops.Output) {
	s.seq++
	ev := history.Event{Seq: s.seq, At: s.at, Goroutine: g, Kind: kind, ID: id, Input: in, Output: out}
	if kind == history.LockReleasing {
		ev.Probe = history.NewProbe(true, s.v.answers, nil)
	}
	s.l.Observe(s.v, &ev)
	if n := openDues(s.l); n != s.l.dues {
		panic(fmt.Sprintf("event %d: %d pods with an obligation open, dues %d", s.seq, n, s.l.dues))
	}
}

// openDues counts l's pods with an obligation open, as l.dues should.
func openDues(l *liveness) int {
	n := 0
	for _, p := range l.tracks {
		if p.due != nil {
			n++
		}
	}
	return n
}

// call is a client call by g whose critical section leaves the pods in st.
func (s *lvScript) call(g string, in ops.Input, out ops.Output, st lvStates) {
	s.ids++
	id := s.ids
	s.emit(g, history.ClientCall, id, in, nil)
	s.emit(g, history.LockAcquired, 0, nil, nil)
	for uid, a := range st {
		s.v.answers[uid] = a
	}
	s.emit(g, history.LockReleasing, 0, nil, nil)
	s.emit(g, history.ClientReturn, id, nil, out)
}

func (s *lvScript) update(t ops.UpdateType, uid types.UID, st lvStates) {
	pod := ops.Pod{UID: string(uid), Name: "p", Namespace: "default", Static: s.v.cfg[uid].Static}
	s.call("client/0", ops.UpdatePod{Type: t, Pod: pod}, nil, st)
}

func (s *lvScript) syncKnown(desired []string, kept ops.KnownPods, st lvStates) {
	s.call("housekeeping", ops.SyncKnownPods{Desired: desired}, kept, st)
}

func (s *lvScript) sync(uid types.UID, fn ops.SyncFn, o ops.Outcome) {
	s.emit("worker/"+string(uid), history.CallbackBegin, 0, ops.SyncBegin{UID: string(uid), Fn: fn}, nil)
	s.emit("worker/"+string(uid), history.CallbackEnd, 0, ops.SyncEnd{UID: string(uid), Fn: fn, Outcome: o}, nil)
}

// settle ends the stream: the inputs stopped at 4 min, Settled comes now.
func (s *lvScript) settle() []history.Violation {
	s.v.st = &oracle.Settle{QuiesceAt: 4 * time.Minute, At: 4*time.Minute + 5*time.Second}
	s.emit("driver", history.Settled, 0, nil, nil)
	return s.l.Finish(nil, nil)
}

// terminateAndFinish: uid's SyncTerminatingPod and SyncTerminatedPod
// succeed, and it is terminated, then finished.
func (s *lvScript) terminateAndFinish(uid types.UID) {
	s.sync(uid, ops.SyncTerminatingPod, ops.OK)
	s.call("worker/"+string(uid), nil, nil, lvStates{uid: lvTerminated})
	s.sync(uid, ops.SyncTerminatedPod, ops.OK)
	s.call("worker/"+string(uid), nil, nil, lvStates{uid: lvFinished})
}

// killAndFinish takes pod a from running to finished through its calls;
// restart sends a create while its termination is requested.
func (s *lvScript) killAndFinish(restart bool) {
	s.update(ops.Create, "a", lvStates{"a": lvRunning})
	s.sync("a", ops.SyncPod, ops.OK)
	s.at += time.Second
	s.update(ops.Kill, "a", lvStates{"a": lvRequested})
	if restart {
		s.update(ops.Create, "a", nil)
	}
	s.terminateAndFinish("a")
}

// restarted: a restart purge at 2s, then the create and a SyncPod after d.
func (s *lvScript) restarted(d time.Duration) []history.Violation {
	s.v.cfg["a"] = oracle.PodConfig{InConfig: true}
	s.killAndFinish(true)
	s.at += time.Second
	s.syncKnown([]string{"a"}, ops.KnownPods{}, lvStates{"a": lvForgotten})
	s.update(ops.Create, "a", lvStates{"a": lvRunning})
	s.at += d
	s.sync("a", ops.SyncPod, ops.OK)
	return s.settle()
}

// deletedForgotten: pod a, deleted and terminal in config, is killed and
// finishes; a create asks to restart it, and SyncKnownPods purges it.
func (s *lvScript) deletedForgotten(static bool) []history.Violation {
	s.v.cfg["a"] = oracle.PodConfig{InConfig: true, Deleted: true, Terminal: true, Static: static, FullName: "p_default"}
	s.killAndFinish(true)
	s.at += time.Second
	s.syncKnown([]string{"a"}, ops.KnownPods{}, lvStates{"a": lvForgotten})
	return s.settle()
}

// lvKept is a SyncKnownPods result that kept pod a, terminated.
var lvKept = ops.KnownPods{{UID: "a", State: ops.TerminatedWork}}

// livenessScripted are the streams of TestLivenessScripted: each bad one
// breaks want, its good twin meets the same obligation.
var livenessScripted = []struct {
	name      string
	bad, good func(s *lvScript) []history.Violation
	want      string
	msg       []string
}{{
	name: "L2 finished orphan kept by SyncKnownPods",
	bad: func(s *lvScript) []history.Violation {
		s.killAndFinish(false)
		s.syncKnown([]string{}, lvKept, nil)
		return s.settle()
	},
	good: func(s *lvScript) []history.Violation {
		s.killAndFinish(false)
		s.syncKnown([]string{}, ops.KnownPods{}, lvStates{"a": lvForgotten})
		return s.settle()
	},
	want: "L2", msg: []string{"pod a: finished at 1s and not desired; SyncKnownPods at 1s kept it (terminated)"},
}, {
	name: "L4 restart-requested pod kept by SyncKnownPods",
	bad: func(s *lvScript) []history.Violation {
		s.v.cfg["a"] = oracle.PodConfig{InConfig: true}
		s.killAndFinish(true)
		s.syncKnown([]string{"a"}, lvKept, nil)
		return s.settle()
	},
	good: func(s *lvScript) []history.Violation { return s.restarted(0) },
	want: "L4", msg: []string{"pod a: restart requested at 1s", "kept it (terminated, desired)", "never restarted"},
}, {
	name: "L4 restarted SyncPod late",
	bad:  func(s *lvScript) []history.Violation { return s.restarted(3 * time.Second) },
	good: func(s *lvScript) []history.Violation { return s.restarted(time.Second) },
	want: "L4", msg: []string{"pod a: purged at 2s for a restart", "SyncPod began only at 5s, 4s after", "(1s; bound"},
}, {
	name: "L4 desired pod forgotten",
	bad: func(s *lvScript) []history.Violation {
		s.v.cfg["a"] = oracle.PodConfig{InConfig: true}
		s.update(ops.Create, "a", lvStates{"a": lvRunning})
		s.syncKnown([]string{}, ops.KnownPods{}, lvStates{"a": lvForgotten})
		s.at += time.Second
		s.syncKnown([]string{"a"}, ops.KnownPods{}, nil)
		return s.settle()
	},
	good: func(s *lvScript) []history.Violation {
		s.v.cfg["a"] = oracle.PodConfig{InConfig: true}
		s.update(ops.Create, "a", lvStates{"a": lvRunning})
		s.syncKnown([]string{}, ops.KnownPods{}, lvStates{"a": lvForgotten})
		s.at += time.Second
		s.syncKnown([]string{"a"}, ops.KnownPods{}, nil)
		s.update(ops.Create, "a", lvStates{"a": lvRunning})
		s.sync("a", ops.SyncPod, ops.OK)
		return s.settle()
	},
	want: "L4", msg: []string{"pod a (in config): desired, but unknown to the pod workers since 0s", "housekeeping of 1s"},
}, {
	name: "L1 running pod purged",
	bad: func(s *lvScript) []history.Violation {
		s.update(ops.Create, "a", lvStates{"a": lvRunning})
		s.sync("a", ops.SyncPod, ops.OK)
		s.syncKnown([]string{}, ops.KnownPods{}, lvStates{"a": lvForgotten})
		return s.settle()
	},
	good: func(s *lvScript) []history.Violation {
		s.killAndFinish(false)
		s.syncKnown([]string{}, ops.KnownPods{}, lvStates{"a": lvForgotten})
		return s.settle()
	},
	want: "L1", msg: []string{"pod a: its record was purged at 0s in state S before it terminated (SyncTerminatingPod never ran)"},
}, {
	name: "L1 orphan never terminated",
	bad: func(s *lvScript) []history.Violation {
		s.update(ops.Create, "a", lvStates{"a": lvRunning})
		s.sync("a", ops.SyncPod, ops.OK)
		s.syncKnown([]string{}, ops.KnownPods{{UID: "a"}}, nil)
		return s.settle()
	},
	good: func(s *lvScript) []history.Violation {
		s.update(ops.Create, "a", lvStates{"a": lvRunning})
		s.sync("a", ops.SyncPod, ops.OK)
		s.syncKnown([]string{}, ops.KnownPods{{UID: "a", State: ops.TerminatingWork}}, lvStates{"a": lvRequested})
		s.terminateAndFinish("a")
		return s.settle()
	},
	want: "L1", msg: []string{"pod a (not in config): not desired at the SyncKnownPods of 0s, state S", "never requested"},
}, {
	name: "L2 unstarted orphan never purged",
	bad: func(s *lvScript) []history.Violation {
		s.update(ops.Create, "a", lvStates{"a": lvRunning})
		s.syncKnown([]string{}, ops.KnownPods{{UID: "a"}}, nil)
		return s.settle()
	},
	good: func(s *lvScript) []history.Violation {
		s.update(ops.Create, "a", lvStates{"a": lvRunning})
		s.syncKnown([]string{}, ops.KnownPods{}, lvStates{"a": lvForgotten})
		return s.settle()
	},
	want: "L2", msg: []string{"pod a (not in config): never started and never seen at runtime (state P)", "never purged"},
}, {
	name: "L7 deletion never requested",
	bad: func(s *lvScript) []history.Violation {
		s.v.cfg["a"] = oracle.PodConfig{InConfig: true, Deleted: true}
		s.update(ops.Create, "a", lvStates{"a": lvRunning})
		s.sync("a", ops.SyncPod, ops.OK)
		return s.settle()
	},
	good: func(s *lvScript) []history.Violation {
		s.v.cfg["a"] = oracle.PodConfig{InConfig: true, Deleted: true}
		s.killAndFinish(false)
		return s.settle()
	},
	want: "L7", msg: []string{"pod a (in config, deletion timestamp set): state S", "its termination was never requested"},
}, {
	// The shape of regress/testdata/l7-static-restart.txt: a deleted pod,
	// finished, asked to restart by a create, purged, and never re-added
	// (its phase is terminal). A pod with an API object is never deleted
	// from the API then; a static pod has none to delete.
	name: "L7 deleted pod forgotten, judged unless static",
	bad:  func(s *lvScript) []history.Violation { return s.deletedForgotten(false) },
	good: func(s *lvScript) []history.Violation { return s.deletedForgotten(true) },
	want: "L7", msg: []string{"pod a (in config, deletion timestamp set): state unknown", "the pod workers do not know it"},
}, {
	name: "L9 update only rescued by the periodic resync",
	bad:  func(s *lvScript) []history.Violation { return s.updateTakenAfter(time.Minute) },
	good: func(s *lvScript) []history.Violation { return s.updateTakenAfter(17 * time.Second) },
	want: "L9", msg: []string{"pod a (S): update at 1s (1 update(s), idle since 1s) not taken by 19s", "(bound 18s)"},
}, {
	name: "L9 kill not taken once the SyncPod in flight returned",
	bad:  func(s *lvScript) []history.Violation { return s.killTakenAfter(19 * time.Second) },
	good: func(s *lvScript) []history.Violation { return s.killTakenAfter(18 * time.Second) },
	want: "L9", msg: []string{"pod a (TR): kill at 1s (1 update(s), idle since 5s) not taken by 23s"},
}, {
	// SyncPod fails at 1s with a BackoffError ending at 41s: the retry may
	// wait until 1s + 1.5 × 40s = 61s, and the bound counts from there.
	name: "L9 update after a BackoffError not taken within the bound from the backoff's end",
	bad: func(s *lvScript) []history.Violation {
		return s.takenAfterFailure(backoffAt(41*time.Second), 80*time.Second)
	},
	good: func(s *lvScript) []history.Violation {
		return s.takenAfterFailure(backoffAt(41*time.Second), 79*time.Second)
	},
	want: "L9", msg: []string{"pod a (S): update at 2s (1 update(s), idle since 2s) not taken by 1m19s", "(bound 18s, from 1m1s"},
}, {
	// An expired BackoffError (and a plain error) gives no more time.
	name: "L9 update after an expired BackoffError owes the plain bound",
	bad:  func(s *lvScript) []history.Violation { return s.takenAfterFailure(backoffAt(0), 21*time.Second) },
	good: func(s *lvScript) []history.Violation { return s.takenAfterFailure(backoffAt(0), 20*time.Second) },
	want: "L9", msg: []string{"pod a (S): update at 2s (1 update(s), idle since 2s) not taken by 20s", "(bound 18s)"},
}, {
	name: "L9 update after a plain error owes the plain bound",
	bad:  func(s *lvScript) []history.Violation { return s.takenAfterFailure(ops.ErrShape{}, 21*time.Second) },
	good: func(s *lvScript) []history.Violation { return s.takenAfterFailure(ops.ErrShape{}, 20*time.Second) },
	want: "L9", msg: []string{"not taken by 20s", "(bound 18s)"},
}, {
	// Pod a's update owes its take only from its backoff's end (1m1s), pod
	// b's later update from 3s: b's bound (21s) passes first, though a's
	// obligation is the older one (checkTakes' earliest bound).
	name: "L9 a later update whose bound passes before an older one's",
	bad:  func(s *lvScript) []history.Violation { return s.laterDueFirst(30 * time.Second) },
	good: func(s *lvScript) []history.Violation { return s.laterDueFirst(20 * time.Second) },
	want: "L9", msg: []string{"pod b (S): update at 3s (1 update(s), idle since 3s) not taken by 21s"},
}, {
	// L8: a failed call with a BackoffError ending beyond the resync
	// interval is retried within 1.5 × the interval + RetryWithin of it;
	// the inputs stop at 4 min.
	name: "L8 a BackoffError clamped to the resync interval, never retried",
	bad: func(s *lvScript) []history.Violation {
		return s.neverRetried(backoffAt(2*time.Minute + 30*time.Second))
	},
	good: func(s *lvScript) []history.Violation {
		return s.neverRetried(backoffAt(3*time.Minute + 30*time.Second))
	},
	want: "L8", msg: []string{"SyncPod failed at 2m30s", "it was never retried"},
}}

func backoffAt(at time.Duration) ops.ErrShape {
	return ops.ErrShape{Backoff: true, BackoffExpiry: at}
}

// takenAfterFailure: pod a's SyncPod fails at 1s with an error of shape e;
// an update at 2s is taken (SyncPod begins) at d.
func (s *lvScript) takenAfterFailure(e ops.ErrShape, d time.Duration) []history.Violation {
	s.v.cfg["a"] = oracle.PodConfig{InConfig: true}
	s.update(ops.Create, "a", lvStates{"a": lvRunning})
	s.at = time.Second
	s.emit("worker/a", history.CallbackBegin, 0, ops.SyncBegin{UID: "a", Fn: ops.SyncPod}, nil)
	s.emit("worker/a", history.CallbackEnd, 0, ops.SyncEnd{UID: "a", Fn: ops.SyncPod, Outcome: ops.Failed, Err: e}, nil)
	s.at = 2 * time.Second
	s.update(ops.Update, "a", nil)
	s.at = d
	s.sync("a", ops.SyncPod, ops.OK)
	return s.settle()
}

// neverRetried: pod a's SyncPod fails at 2m30s with an error of shape e
// and is never retried before the inputs stop at 4 min (expiry e's, or
// 2m30s + 1.5 × 1 min = 3m30s at the latest, + 18 s ≥ 4 min excuses it).
func (s *lvScript) neverRetried(e ops.ErrShape) []history.Violation {
	s.v.cfg["a"] = oracle.PodConfig{InConfig: true}
	s.update(ops.Create, "a", lvStates{"a": lvRunning})
	s.sync("a", ops.SyncPod, ops.OK)
	s.at = 2*time.Minute + 30*time.Second
	s.emit("worker/a", history.CallbackBegin, 0, ops.SyncBegin{UID: "a", Fn: ops.SyncPod}, nil)
	s.emit("worker/a", history.CallbackEnd, 0, ops.SyncEnd{UID: "a", Fn: ops.SyncPod, Outcome: ops.Failed, Err: e}, nil)
	return s.settle()
}

// updateTakenAfter: pod a runs; an update at 1s is taken (its SyncPod
// begins) d later.
func (s *lvScript) updateTakenAfter(d time.Duration) []history.Violation {
	s.update(ops.Create, "a", lvStates{"a": lvRunning})
	s.sync("a", ops.SyncPod, ops.OK)
	s.at += time.Second
	s.update(ops.Update, "a", nil)
	s.at += d
	s.sync("a", ops.SyncPod, ops.OK)
	return s.settle()
}

// killTakenAfter: a kill at 1s arrives while a SyncPod runs (until 5s);
// SyncTerminatingPod begins d after that SyncPod returned.
func (s *lvScript) killTakenAfter(d time.Duration) []history.Violation {
	s.update(ops.Create, "a", lvStates{"a": lvRunning})
	s.emit("worker/a", history.CallbackBegin, 0, ops.SyncBegin{UID: "a", Fn: ops.SyncPod}, nil)
	s.at += time.Second
	s.update(ops.Kill, "a", lvStates{"a": lvRequested})
	s.at += 4 * time.Second
	s.emit("worker/a", history.CallbackEnd, 0, ops.SyncEnd{UID: "a", Fn: ops.SyncPod, Outcome: ops.OK}, nil)
	s.at += d
	s.terminateAndFinish("a")
	return s.settle()
}

// TestLivenessScripted: the stream-only verdicts (see livenessScripted),
// each message naming the pod, its state and what never happened.
func TestLivenessScripted(t *testing.T) {
	for _, tt := range livenessScripted {
		t.Run(tt.name, func(t *testing.T) {
			bad := tt.bad(newLvScript())
			v, ok := lvFind(bad, tt.want)
			if !ok {
				t.Fatalf("bad stream: got violations %v, want one of %s", bad, tt.want)
			}
			for _, sub := range tt.msg {
				if !strings.Contains(v.Message, sub) {
					t.Errorf("bad stream: got message %q, want it to contain %q", v.Message, sub)
				}
			}
			if good := tt.good(newLvScript()); len(good) != 0 {
				t.Errorf("good stream: got violations %v, want none", good)
			}
		})
	}
}

func lvFind(vs []history.Violation, invariant string) (history.Violation, bool) {
	for _, v := range vs {
		if v.Invariant == invariant {
			return v, true
		}
	}
	return history.Violation{}, false
}
