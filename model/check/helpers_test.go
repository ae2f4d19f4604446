package check

import (
	"slices"
	"testing"

	"github.com/anishathalye/porcupine"
	"github.com/podsim/podsim/model"
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

// timed is an operation with a real-time interval and a client.
type timed struct {
	ops.Op
	call, ret int64
	client    int
}

// seq makes a sequential history: each op at [2i, 2i+1].
func seq(list ...ops.Op) []timed {
	out := make([]timed, len(list))
	for i, o := range list {
		out[i] = timed{Op: o, call: int64(2 * i), ret: int64(2*i + 1)}
	}
	return out
}

func at(client int, call, ret int64, o ops.Op) timed {
	return timed{Op: o, call: call, ret: ret, client: client}
}

func toPorcupine(h []timed) []porcupine.Operation {
	out := make([]porcupine.Operation, len(h))
	for i, t := range h {
		out[i] = porcupine.Operation{ClientId: t.client, Input: t.Input, Call: t.call, Output: t.Output, Return: t.ret}
	}
	return out
}

func opsOf(h []timed) []ops.Op {
	out := make([]ops.Op, len(h))
	for i, t := range h {
		out[i] = t.Op
	}
	return out
}

// mustRun replays list from the initial state and returns the closed set of
// possible states.
func mustRun(t *testing.T, list ...ops.Op) []model.State {
	t.Helper()
	states := model.Closure([]model.State{model.NewState()})
	for i, o := range list {
		next, err := model.Next(states, o.Input, o.Output)
		if err != nil {
			t.Fatalf("op %d %s: %v", i, ops.Describe(o.Input, o.Output), err)
		}
		states = next
	}
	return states
}

// lifecycle, started and concat are model's static_test.go helpers.

// lifecycle returns the operations that take a started pod through
// termination to finished, with grace 30 and no completions.
func lifecycle(p ops.Pod) []ops.Op {
	return []ops.Op{
		do(upd(ops.Kill, p)),
		do(beginTerminating(p.UID, p.Version, 30)), do(end(p.UID, ops.SyncTerminatingPod, ops.OK)),
		do(beginTerminated(p.UID, p.Version)), do(end(p.UID, ops.SyncTerminatedPod, ops.OK)),
	}
}

func started(p ops.Pod) []ops.Op {
	return []ops.Op{do(upd(ops.Create, p)), do(beginSync(p.UID, ops.Create, p.Version)), do(end(p.UID, ops.SyncPod, ops.OK))}
}

func concat(parts ...[]ops.Op) []ops.Op { return slices.Concat(parts...) }
