package model

import (
	"slices"
	"testing"
)

// Builders for readable tests: pods named after their UID in namespace ns,
// spec grace 30, running.

func pod(uid string, v int) Pod {
	return Pod{UID: uid, Name: uid, Namespace: "ns", Version: v, SpecGrace: 30, Phase: PhaseRunning}
}

func staticPod(uid, name string, v int) Pod {
	p := pod(uid, v)
	p.Name, p.Static = name, true
	return p
}

func deleting(p Pod, grace int64) Pod {
	p.DeletionTimestamp, p.DeletionGrace, p.HasDeletionGrace = true, grace, true
	return p
}

func phase(p Pod, ph Phase) Pod { p.Phase = ph; return p }

func upd(t UpdateType, p Pod) UpdatePod { return UpdatePod{Type: t, Pod: p} }

func killOpts(p Pod, k KillOptions) UpdatePod { return UpdatePod{Type: Kill, Pod: p, Kill: k} }

func runtimeKill(uid string) UpdatePod {
	return UpdatePod{Type: Kill, Pod: Pod{UID: uid, Name: uid, Namespace: "ns"}, RuntimeOnly: true,
		Kill: KillOptions{GraceOverride: 1, HasGraceOverride: true}}
}

func q(kind QueryKind, uid string) Query { return Query{Kind: kind, UID: uid} }

func mirror(fullname string) Query {
	return Query{Kind: IsPodForMirrorPodTerminatingByFullName, FullName: fullname}
}

func beginSync(uid string, t UpdateType, v int) SyncBegin {
	return SyncBegin{UID: uid, Fn: SyncPod, Type: t, Version: v}
}

func beginTerminating(uid string, v int, grace int64) SyncBegin {
	return SyncBegin{UID: uid, Fn: SyncTerminatingPod, Version: v, Grace: grace}
}

func beginTerminated(uid string, v int) SyncBegin {
	return SyncBegin{UID: uid, Fn: SyncTerminatedPod, Version: v}
}

func beginRuntime(uid string) SyncBegin { return SyncBegin{UID: uid, Fn: SyncTerminatingRuntimePod} }

func end(uid string, fn SyncFn, o Outcome) SyncEnd { return SyncEnd{UID: uid, Fn: fn, Outcome: o} }

func skp(desired ...string) SyncKnownPods { return SyncKnownPods{Desired: desired} }

// op pairs an input with its output; yes/no are query answers.
func op(in Input, out Output) Op { return Op{Input: in, Output: out} }

func do(in Input) Op { return Op{Input: in} }

const (
	yes = Answer(true)
	no  = Answer(false)
)

// mustRun replays ops from the initial state and returns the closed set of
// possible states.
func mustRun(t *testing.T, ops ...Op) []State {
	t.Helper()
	states := Closure([]State{NewState()})
	for i, o := range ops {
		next, err := Next(states, o.Input, o.Output)
		if err != nil {
			t.Fatalf("op %d %s: %v", i, Describe(o.Input, o.Output), err)
		}
		states = next
	}
	return states
}

// nextCalls lists the callbacks that may begin next for uid from a closed
// set of states.
func nextCalls(states []State, uid string) []SyncFn {
	var fns []SyncFn
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
func kp(uid string, state WorkType, orphan, hasConfig, static bool) KnownPod {
	return KnownPod{UID: uid, State: state, Orphan: orphan, HasConfig: hasConfig, Static: static}
}
