package model

import (
	"slices"
	"testing"

	"github.com/podsim/podsim/model/ops"
)

// Builders for readable tests: pods named after their UID in namespace ns,
// spec grace 30, running.

func pod(uid string, v int) ops.Pod {
	return ops.Pod{UID: uid, Name: uid, Namespace: "ns", Version: v, SpecGrace: 30, Phase: ops.PhaseRunning}
}

func staticPod(uid, name string, v int) ops.Pod {
	p := pod(uid, v)
	p.Name, p.Static = name, true
	return p
}

func deleting(p ops.Pod, grace int64) ops.Pod {
	p.DeletionTimestamp, p.DeletionGrace, p.HasDeletionGrace = true, grace, true
	return p
}

func phase(p ops.Pod, ph ops.Phase) ops.Pod { p.Phase = ph; return p }

func upd(t ops.UpdateType, p ops.Pod) ops.UpdatePod { return ops.UpdatePod{Type: t, Pod: p} }

func killOpts(p ops.Pod, k ops.KillOptions) ops.UpdatePod {
	return ops.UpdatePod{Type: ops.Kill, Pod: p, Kill: k}
}

func runtimeKill(uid string) ops.UpdatePod {
	return ops.UpdatePod{Type: ops.Kill, Pod: ops.Pod{UID: uid, Name: uid, Namespace: "ns"}, RuntimeOnly: true,
		Kill: ops.KillOptions{GraceOverride: 1, HasGraceOverride: true}}
}

func q(kind ops.QueryKind, uid string) ops.Query { return ops.Query{Kind: kind, UID: uid} }

func mirror(fullname string) ops.Query {
	return ops.Query{Kind: ops.IsPodForMirrorPodTerminatingByFullName, FullName: fullname}
}

func beginSync(uid string, t ops.UpdateType, v int) ops.SyncBegin {
	return ops.SyncBegin{UID: uid, Fn: ops.SyncPod, Type: t, Version: v}
}

func beginTerminating(uid string, v int, grace int64) ops.SyncBegin {
	return ops.SyncBegin{UID: uid, Fn: ops.SyncTerminatingPod, Version: v, Grace: grace}
}

func beginTerminated(uid string, v int) ops.SyncBegin {
	return ops.SyncBegin{UID: uid, Fn: ops.SyncTerminatedPod, Version: v}
}

func beginRuntime(uid string) ops.SyncBegin {
	return ops.SyncBegin{UID: uid, Fn: ops.SyncTerminatingRuntimePod}
}

func end(uid string, fn ops.SyncFn, o ops.Outcome) ops.SyncEnd {
	return ops.SyncEnd{UID: uid, Fn: fn, Outcome: o}
}

func skp(desired ...string) ops.SyncKnownPods { return ops.SyncKnownPods{Desired: desired} }

// op pairs an input with its output; yes/no are query answers.
func op(in ops.Input, out ops.Output) ops.Op { return ops.Op{Input: in, Output: out} }

func do(in ops.Input) ops.Op { return ops.Op{Input: in} }

const (
	yes = ops.Answer(true)
	no  = ops.Answer(false)
)

// mustRun replays seq from the initial state and returns the closed set of
// possible states.
func mustRun(t *testing.T, seq ...ops.Op) []State {
	t.Helper()
	states := Closure([]State{NewState()})
	for i, o := range seq {
		next, err := Next(states, o.Input, o.Output)
		if err != nil {
			t.Fatalf("op %d %s: %v", i, ops.Describe(o.Input, o.Output), err)
		}
		states = next
	}
	return states
}

// nextCalls lists the callbacks that may begin next for uid from a closed
// set of states.
func nextCalls(states []State, uid string) []ops.SyncFn {
	var fns []ops.SyncFn
	for _, s := range states {
		if f := s.Records[uid].Flight; f.Stage == Taken && !slices.Contains(fns, f.Fn) {
			fns = append(fns, f.Fn)
		}
	}
	slices.Sort(fns)
	return fns
}

// only returns the single state of a set whose record uid is idle (the
// "worker has not woken yet" branch), failing otherwise.
func idle(t *testing.T, states []State, uid string) State {
	t.Helper()
	var found []State
	for _, s := range states {
		if s.Records[uid].Flight.Stage == Idle {
			found = append(found, s)
		}
	}
	if len(found) == 0 {
		t.Fatalf("no state with %s idle among %d", uid, len(states))
	}
	return found[0]
}

// kp is a SyncKnownPods result entry.
func kp(uid string, state ops.WorkType, orphan, hasConfig, static bool) ops.KnownPod {
	return ops.KnownPod{UID: uid, State: state, Orphan: orphan, HasConfig: hasConfig, Static: static}
}
