package model

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/anishathalye/porcupine"
)

// PorcupineModel is the model in porcupine's terms: a NondeterministicModel
// whose state is one State, each step being Step followed by Closure,
// partitioned by pod UID (static pods by full name). Inputs are the Input
// types of this package; outputs are Answer, KnownPods or nil.
func PorcupineModel() porcupine.Model {
	nd := porcupine.NondeterministicModel{
		Partition: Partition,
		Init:      func() []any { return []any{NewState()} },
		Step: func(state, input, output any) []any {
			next, err := Step(state.(State), input.(Input), asOutput(output))
			if err != nil {
				return nil
			}
			closed := Closure(next)
			out := make([]any, len(closed))
			for i, s := range closed {
				out[i] = s
			}
			return out
		},
		Equal:             func(a, b any) bool { return a.(State).Equal(b.(State)) },
		Hash:              func(s any) uint64 { return s.(State).Hash() },
		DescribeOperation: func(in, out any) string { return Describe(in.(Input), asOutput(out)) },
		DescribeState:     func(s any) string { return DescribeState(s.(State)) },
	}
	return nd.ToModel()
}

// Check runs porcupine over a history (timeout 0 = none); the info can be
// rendered with porcupine.Visualize.
func Check(history []porcupine.Operation, timeout time.Duration) (porcupine.CheckResult, porcupine.LinearizationInfo) {
	return porcupine.CheckOperationsVerbose(PorcupineModel(), history, timeout)
}

func asOutput(out any) Output {
	if out == nil {
		return nil
	}
	o, ok := out.(Output)
	if !ok {
		panic(fmt.Sprintf("model: output %T is not a model.Output (Answer, KnownPods or nil)", out))
	}
	return o
}

// Partition splits a history into independent parts: one per pod UID, except
// that static pods sharing a full name share a part (their starts exclude
// each other) and a mirror-pod query joins the part of its full name.
// SyncKnownPods touches every pod and sets podsSynced, so each part gets a
// copy restricted to its own UIDs. This is exact for the per-part effects;
// it does not force the copies to linearize at one common instant, so it can
// only ever accept more, never reject a linearizable history.
func Partition(history []porcupine.Operation) [][]porcupine.Operation {
	ops := make([]Op, len(history))
	for i, h := range history {
		in, ok := h.Input.(Input)
		if !ok {
			panic(fmt.Sprintf("model: Partition: operation %d has input %T, not a model.Input", i, h.Input))
		}
		ops[i] = Op{Input: in, Output: asOutput(h.Output)}
	}
	plan := planPartitions(ops)
	parts := make([][]porcupine.Operation, len(plan.members))
	for p, members := range plan.members {
		for _, i := range members {
			op := history[i]
			if skp, ok := ops[i].Input.(SyncKnownPods); ok {
				in, out := restrictKnown(skp, ops[i].Output, plan.uids[p])
				op.Input, op.Output = in, out
			}
			parts[p] = append(parts[p], op)
		}
	}
	return parts
}

// partitionPlan lists, per part, the indices of its operations (in history
// order) and the UIDs it owns.
type partitionPlan struct {
	members [][]int
	uids    []map[string]bool
}

func planPartitions(ops []Op) partitionPlan {
	uf := unionFind{}
	var broadcast []int
	keyOf := make([]string, len(ops))
	for i, op := range ops {
		switch in := op.Input.(type) {
		case SyncKnownPods:
			broadcast = append(broadcast, i)
			known, _ := op.Output.(KnownPods)
			for _, k := range known {
				uf.find("uid/" + k.UID)
			}
			continue
		case UpdatePod:
			if in.Pod.Static && !in.RuntimeOnly {
				uf.union("uid/"+in.Pod.UID, "name/"+in.Pod.FullName())
			}
		}
		keyOf[i] = nodeOf(op.Input)
		uf.find(keyOf[i])
	}
	roots := map[string]int{}
	var plan partitionPlan
	partOf := func(node string) int {
		root := uf.find(node)
		p, ok := roots[root]
		if !ok {
			p = len(plan.members)
			roots[root] = p
			plan.members = append(plan.members, nil)
			plan.uids = append(plan.uids, map[string]bool{})
		}
		return p
	}
	for _, node := range uf.nodes() {
		p := partOf(node)
		if uid, ok := strings.CutPrefix(node, "uid/"); ok {
			plan.uids[p][uid] = true
		}
	}
	for i := range ops {
		if keyOf[i] != "" {
			p := partOf(keyOf[i])
			plan.members[p] = append(plan.members[p], i)
		}
	}
	if len(plan.members) == 0 {
		plan.members, plan.uids = [][]int{nil}, []map[string]bool{{}}
	}
	for p := range plan.members {
		plan.members[p] = append(plan.members[p], broadcast...)
		slices.Sort(plan.members[p])
	}
	return plan
}

// nodeOf is the union-find node an operation belongs to.
func nodeOf(in Input) string {
	switch in := in.(type) {
	case UpdatePod:
		return "uid/" + in.Pod.UID
	case Query:
		if in.Kind == IsPodForMirrorPodTerminatingByFullName {
			return "name/" + in.FullName
		}
		return "uid/" + in.UID
	case CompletionFired:
		return "uid/" + in.UID
	case CancelFired:
		return "uid/" + in.UID
	case KillPodNowDone:
		return "uid/" + in.UID
	case SyncBegin:
		return "uid/" + in.UID
	case SyncEnd:
		return "uid/" + in.UID
	}
	return "other"
}

// restrictKnown keeps the desired UIDs and result entries of one part.
func restrictKnown(in SyncKnownPods, out Output, uids map[string]bool) (SyncKnownPods, Output) {
	var desired []string
	for _, uid := range in.Desired {
		if uids[uid] {
			desired = append(desired, uid)
		}
	}
	known, _ := out.(KnownPods)
	var kept KnownPods
	for _, k := range known {
		if uids[k.UID] {
			kept = append(kept, k)
		}
	}
	return SyncKnownPods{Desired: desired}, kept
}

// unionFind over string nodes; nodes() lists them sorted, so that part
// numbering does not depend on map order.
type unionFind map[string]string

func (u unionFind) find(x string) string {
	p, ok := u[x]
	if !ok {
		u[x] = x
		return x
	}
	if p == x {
		return x
	}
	root := u.find(p)
	u[x] = root
	return root
}

func (u unionFind) union(a, b string) {
	ra, rb := u.find(a), u.find(b)
	if ra != rb {
		u[max(ra, rb)] = min(ra, rb)
	}
}

func (u unionFind) nodes() []string {
	nodes := make([]string, 0, len(u))
	for n := range u {
		nodes = append(nodes, n)
	}
	slices.Sort(nodes)
	return nodes
}
