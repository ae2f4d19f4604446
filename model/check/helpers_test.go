package check

import (
	"slices"
	"testing"

	"github.com/anishathalye/porcupine"
	"github.com/podsim/podsim/model"
)

// Builders for readable tests: pods named after their UID in namespace ns,
// spec grace 30, running.

func pod(uid string, v int) model.Pod {
	return model.Pod{UID: uid, Name: uid, Namespace: "ns", Version: v, SpecGrace: 30, Phase: model.PhaseRunning}
}

func staticPod(uid, name string, v int) model.Pod {
	p := pod(uid, v)
	p.Name, p.Static = name, true
	return p
}

func deleting(p model.Pod, grace int64) model.Pod {
	p.DeletionTimestamp, p.DeletionGrace, p.HasDeletionGrace = true, grace, true
	return p
}

func phase(p model.Pod, ph model.Phase) model.Pod { p.Phase = ph; return p }

func upd(t model.UpdateType, p model.Pod) model.UpdatePod { return model.UpdatePod{Type: t, Pod: p} }

func killOpts(p model.Pod, k model.KillOptions) model.UpdatePod {
	return model.UpdatePod{Type: model.Kill, Pod: p, Kill: k}
}

func runtimeKill(uid string) model.UpdatePod {
	return model.UpdatePod{Type: model.Kill, Pod: model.Pod{UID: uid, Name: uid, Namespace: "ns"}, RuntimeOnly: true,
		Kill: model.KillOptions{GraceOverride: 1, HasGraceOverride: true}}
}

func q(kind model.QueryKind, uid string) model.Query { return model.Query{Kind: kind, UID: uid} }

func mirror(fullname string) model.Query {
	return model.Query{Kind: model.IsPodForMirrorPodTerminatingByFullName, FullName: fullname}
}

func beginSync(uid string, t model.UpdateType, v int) model.SyncBegin {
	return model.SyncBegin{UID: uid, Fn: model.SyncPod, Type: t, Version: v}
}

func beginTerminating(uid string, v int, grace int64) model.SyncBegin {
	return model.SyncBegin{UID: uid, Fn: model.SyncTerminatingPod, Version: v, Grace: grace}
}

func beginTerminated(uid string, v int) model.SyncBegin {
	return model.SyncBegin{UID: uid, Fn: model.SyncTerminatedPod, Version: v}
}

func beginRuntime(uid string) model.SyncBegin {
	return model.SyncBegin{UID: uid, Fn: model.SyncTerminatingRuntimePod}
}

func end(uid string, fn model.SyncFn, o model.Outcome) model.SyncEnd {
	return model.SyncEnd{UID: uid, Fn: fn, Outcome: o}
}

func skp(desired ...string) model.SyncKnownPods { return model.SyncKnownPods{Desired: desired} }

// op pairs an input with its output; yes/no are query answers.
func op(in model.Input, out model.Output) model.Op { return model.Op{Input: in, Output: out} }

func do(in model.Input) model.Op { return model.Op{Input: in} }

const (
	yes = model.Answer(true)
	no  = model.Answer(false)
)

// timed is an operation with a real-time interval and a client.
type timed struct {
	model.Op
	call, ret int64
	client    int
}

// seq makes a sequential history: each op at [2i, 2i+1].
func seq(ops ...model.Op) []timed {
	out := make([]timed, len(ops))
	for i, o := range ops {
		out[i] = timed{Op: o, call: int64(2 * i), ret: int64(2*i + 1)}
	}
	return out
}

func at(client int, call, ret int64, o model.Op) timed {
	return timed{Op: o, call: call, ret: ret, client: client}
}

func toPorcupine(h []timed) []porcupine.Operation {
	out := make([]porcupine.Operation, len(h))
	for i, t := range h {
		out[i] = porcupine.Operation{ClientId: t.client, Input: t.Input, Call: t.call, Output: t.Output, Return: t.ret}
	}
	return out
}

func opsOf(h []timed) []model.Op {
	out := make([]model.Op, len(h))
	for i, t := range h {
		out[i] = t.Op
	}
	return out
}

// mustRun replays ops from the initial state and returns the closed set of
// possible states.
func mustRun(t *testing.T, ops ...model.Op) []model.State {
	t.Helper()
	states := model.Closure([]model.State{model.NewState()})
	for i, o := range ops {
		next, err := model.Next(states, o.Input, o.Output)
		if err != nil {
			t.Fatalf("op %d %s: %v", i, model.Describe(o.Input, o.Output), err)
		}
		states = next
	}
	return states
}

// lifecycle, started and concat are model's static_test.go helpers.

// lifecycle returns the operations that take a started pod through
// termination to finished, with grace 30 and no completions.
func lifecycle(p model.Pod) []model.Op {
	return []model.Op{
		do(upd(model.Kill, p)),
		do(beginTerminating(p.UID, p.Version, 30)), do(end(p.UID, model.SyncTerminatingPod, model.OK)),
		do(beginTerminated(p.UID, p.Version)), do(end(p.UID, model.SyncTerminatedPod, model.OK)),
	}
}

func started(p model.Pod) []model.Op {
	return []model.Op{do(upd(model.Create, p)), do(beginSync(p.UID, model.Create, p.Version)), do(end(p.UID, model.SyncPod, model.OK))}
}

func concat(parts ...[]model.Op) []model.Op { return slices.Concat(parts...) }
