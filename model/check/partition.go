package check

import (
	"fmt"
	"slices"
	"strings"

	"github.com/anishathalye/porcupine"
	"github.com/podsim/podsim/model/ops"
)

// Partition splits a history into independent parts: one per pod UID, except
// that static pods sharing a full name share a part (their starts exclude
// each other) and a mirror-pod query joins the part of its full name.
// SyncKnownPods touches every pod and sets podsSynced, so each part that
// owns UIDs gets a copy restricted to its own UIDs (a part of mirror-pod
// queries alone does not need one: nothing there reads podsSynced or a
// record). This is exact for the per-part effects; it does not force the
// copies to linearize at one common instant, so it can only ever accept
// more, never reject a linearizable history. WorkerStep markers are left
// out: porcupine explores the hidden worker steps itself.
func Partition(history []porcupine.Operation) [][]porcupine.Operation {
	return partition(history, false)
}

// PartitionMarked is Partition keeping the WorkerStep markers, each in the
// part of its UID (PorcupineMarkedModel).
func PartitionMarked(history []porcupine.Operation) [][]porcupine.Operation {
	return partition(history, true)
}

func partition(history []porcupine.Operation, keepMarkers bool) [][]porcupine.Operation {
	list := opsOfHistory(history)
	plan := planPartitions(list)
	parts := make([][]porcupine.Operation, plan.parts)
	for q, n := range plan.sizes(list, keepMarkers) {
		parts[q] = make([]porcupine.Operation, 0, n)
	}
	var split knownSplit
	var uids []string // one array for every part's desired UIDs, and one
	var known ops.KnownPods
	for i, op := range history {
		switch p := plan.partOf[i]; {
		case p == broadcast:
			split.split(&plan, list[i])
			for q, owns := range plan.owns {
				if owns {
					in, kept := split.part(q)
					uids, in.Desired = carve(uids, in.Desired)
					op.Input = in
					known, op.Output = carve(known, kept)
					parts[q] = append(parts[q], op)
				}
			}
		case isWorkerStep(list[i].Input) && !keepMarkers:
		default:
			parts[p] = append(parts[p], op)
		}
	}
	return slices.DeleteFunc(parts, func(p []porcupine.Operation) bool { return len(p) == 0 })
}

// opsOfHistory unboxes a porcupine history's operations.
func opsOfHistory(history []porcupine.Operation) []ops.Op {
	list := make([]ops.Op, len(history))
	for i, h := range history {
		in, ok := h.Input.(ops.Input)
		if !ok {
			panic(fmt.Sprintf("model: Partition: operation %d has input %T, not an ops.Input", i, h.Input))
		}
		list[i] = ops.Op{Input: in, Output: asOutput(h.Output)}
	}
	return list
}

// carve copies xs into the free room of buf (a new array when full) and
// returns buf extended and the copy, which no later carve overwrites.
func carve[S ~[]E, E any](buf, xs S) (S, S) {
	if cap(buf)-len(buf) < len(xs) {
		buf = make(S, 0, max(256, len(xs)))
	}
	from := len(buf)
	buf = append(buf, xs...)
	return buf, buf[from:len(buf):len(buf)]
}

// partitionPlan assigns every operation of a history to its part. Its
// arrays and maps are reused when it plans another history (Replay keeps
// plans in a pool).
type partitionPlan struct {
	parts int
	// partOf is the part of each operation, or broadcast for SyncKnownPods
	// (every part that owns UIDs).
	partOf []int
	// uidNode numbers the UIDs, and partOfNode is the part of each node
	// (the part that owns a UID is partOfNode[uidNode[uid]]); owns reports
	// parts with UIDs.
	uidNode    map[string]int
	partOfNode []int
	owns       []bool
	// Planning scratch: static full names' nodes, the union-find over all
	// nodes and the part of each root.
	nameNode   map[string]int
	uf         unionFind
	partOfRoot []int
	nameKey    []byte
	// nodeKey is each node's UID or full name (isUID tells which), and
	// order the nodes in numbering order.
	nodeKey []string
	isUID   []bool
	order   []int32
	// markers: the history holds WorkerStep markers (witness mode).
	markers bool
	// nodeOps counts each node's operations and broadcasts lists the
	// SyncKnownPods (partWalk); joined is the name node a UID node was
	// last joined with, -1 if none (a static pod's updates repeat it).
	nodeOps, broadcasts, joined []int32
	recent                      uidCache
	// knownNodes are the nodes of the UIDs of every SyncKnownPods result
	// entry, in history order (partWalk shares the results out by part).
	knownNodes []int32
}

// uidCache answers most UID lookups of a plan with one string comparison
// instead of hashing the UID: a history names a few dozen UIDs thousands
// of times. Direct-mapped; a miss asks the map. Mechanics only: it returns
// what the map would.
type uidCache [64]uidSlot

type uidSlot struct {
	uid  string
	node int // -1: empty
}

func (c *uidCache) slot(uid string) *uidSlot {
	h := len(uid)
	if h > 0 { // UIDs differ at the end
		h = h*13 + int(uid[h-1])
	}
	return &c[h&63]
}

const broadcast = -1

// sizes counts the operations of each part, so that Partition allocates
// each part once (porcupine copies every operation into its part).
func (plan *partitionPlan) sizes(list []ops.Op, keepMarkers bool) []int {
	n := make([]int, plan.parts)
	broadcasts := 0
	for i, p := range plan.partOf {
		switch {
		case p == broadcast:
			broadcasts++
		case keepMarkers || !isWorkerStep(list[i].Input):
			n[p]++
		}
	}
	for q, owns := range plan.owns {
		if owns {
			n[q] += broadcasts
		}
	}
	return n
}

func isWorkerStep(in ops.Input) bool { _, ok := in.(ops.WorkerStep); return ok }

// planPartitions groups UIDs and static full names with a union-find and
// numbers the parts in the order of their first node (names, then UIDs,
// each sorted), so that part numbers do not depend on map order.
func planPartitions(list []ops.Op) partitionPlan {
	var plan partitionPlan
	plan.plan(list)
	for i, n := range plan.partOf {
		if n != broadcast {
			plan.partOf[i] = plan.partOfNode[n]
		}
	}
	return plan
}

// plan is planPartitions into plan's reused arrays, except that partOf is
// left as each operation's node (Replay reads it through partOfNode).
func (plan *partitionPlan) plan(list []ops.Op) {
	plan.reset(len(list))
	plan.nodeEachOp(list)
	plan.partOfRoot = slices.Grow(plan.partOfRoot[:0], len(plan.uf))[:len(plan.uf)]
	for i := range plan.partOfRoot {
		plan.partOfRoot[i] = -1
	}
	plan.order = plan.order[:0] // names, then UIDs, each sorted
	for n := range plan.nodeKey {
		plan.order = append(plan.order, int32(n))
	}
	slices.SortFunc(plan.order, func(a, b int32) int {
		if plan.isUID[a] != plan.isUID[b] {
			return boolBit(plan.isUID[a]) - boolBit(plan.isUID[b])
		}
		return strings.Compare(plan.nodeKey[a], plan.nodeKey[b])
	})
	for _, n := range plan.order {
		if q := plan.partOfNodeNumbered(int(n)); plan.isUID[n] {
			plan.owns[q] = true
		}
	}
	plan.partOfNode = slices.Grow(plan.partOfNode[:0], len(plan.uf))[:len(plan.uf)]
	for n := range plan.partOfNode {
		plan.partOfNode[n] = plan.partOfNodeNumbered(n)
	}
}

func (plan *partitionPlan) reset(ops int) {
	plan.parts, plan.uf, plan.owns, plan.knownNodes = 0, plan.uf[:0], plan.owns[:0], plan.knownNodes[:0]
	plan.nodeKey, plan.isUID, plan.markers = plan.nodeKey[:0], plan.isUID[:0], false
	plan.nodeOps, plan.broadcasts, plan.joined = plan.nodeOps[:0], plan.broadcasts[:0], plan.joined[:0]
	plan.partOf = slices.Grow(plan.partOf[:0], ops)[:ops]
	if plan.uidNode == nil {
		plan.uidNode, plan.nameNode = make(map[string]int, 32), map[string]int{}
	}
	clear(plan.uidNode)
	clear(plan.nameNode)
	for i := range plan.recent {
		plan.recent[i].uid, plan.recent[i].node = "", -1
	}
}

// nodeEachOp sets partOf to the node of each operation (broadcast for
// SyncKnownPods), joining static pods' UIDs with their full names. One type
// switch and one UID lookup per operation: planning is a fair share of a
// witness replay.
func (plan *partitionPlan) nodeEachOp(list []ops.Op) {
	partOf, recent, markers := plan.partOf[:len(list)], &plan.recent, false
	for i := range list {
		var uid string
		var static *ops.Pod // a static pod's update joins its full name
		switch in := list[i].Input.(type) {
		case ops.WorkerStep:
			uid, markers = in.UID, true
		case ops.UpdatePod:
			uid = in.Pod.UID
			if in.Pod.Static && !in.RuntimeOnly {
				static = &in.Pod
			}
		case ops.Query:
			if in.Kind == ops.IsPodForMirrorPodTerminatingByFullName {
				partOf[i] = plan.node(plan.nameNode, in.FullName, false)
				plan.nodeOps[partOf[i]]++
				continue
			}
			uid = in.UID
		case ops.SyncBegin:
			uid = in.UID
		case ops.SyncEnd:
			uid = in.UID
		case ops.StatusReadFailed:
			uid = in.UID
		case ops.SyncKnownPods:
			partOf[i] = broadcast
			plan.broadcasts = append(plan.broadcasts, int32(i))
			known, _ := list[i].Output.(ops.KnownPods)
			for k := range known {
				e := recent.slot(known[k].UID) // the cache, then the map
				if e.node < 0 || e.uid != known[k].UID {
					e.uid, e.node = known[k].UID, plan.node(plan.uidNode, known[k].UID, true)
				}
				plan.knownNodes = append(plan.knownNodes, int32(e.node))
			}
			continue
		default:
			uid = ops.UIDOf(in)
		}
		e := recent.slot(uid) // the cache, then the map
		if e.node < 0 || e.uid != uid {
			e.uid, e.node = uid, plan.node(plan.uidNode, uid, true)
		}
		partOf[i] = e.node
		plan.nodeOps[e.node]++
		if static != nil {
			plan.nameKey = static.AppendFullName(plan.nameKey[:0])
			if j := plan.joined[e.node]; j < 0 || plan.nodeKey[j] != string(plan.nameKey) { // not joined yet
				j = int32(plan.nameNodeOf(plan.nameKey))
				plan.uf.union(e.node, int(j))
				plan.joined[e.node] = j
			}
		}
	}
	plan.markers = markers
}

// node is key's node in nodes (uidNode if isUID, else nameNode), added if
// new.
func (plan *partitionPlan) node(nodes map[string]int, key string, isUID bool) int {
	n, ok := nodes[key]
	if !ok {
		n = plan.uf.add()
		nodes[key] = n
		plan.nodeKey, plan.isUID = append(plan.nodeKey, key), append(plan.isUID, isUID)
		plan.nodeOps, plan.joined = append(plan.nodeOps, 0), append(plan.joined, -1)
	}
	return n
}

// nameNodeOf is node for a full name held in a buffer (no allocation to
// look it up).
func (plan *partitionPlan) nameNodeOf(name []byte) int {
	if n, ok := plan.nameNode[string(name)]; ok {
		return n
	}
	return plan.node(plan.nameNode, string(name), false)
}

// partOfNodeNumbered is the part of node n's group, numbering parts in the
// order this is first asked.
func (plan *partitionPlan) partOfNodeNumbered(n int) int {
	root := plan.uf.find(n)
	if plan.partOfRoot[root] < 0 {
		plan.partOfRoot[root] = plan.parts
		plan.parts++
		plan.owns = append(plan.owns, false)
	}
	return plan.partOfRoot[root]
}

// unionFind over dense node numbers.
type unionFind []int

func (u *unionFind) add() int {
	*u = append(*u, len(*u))
	return len(*u) - 1
}

func (u unionFind) find(x int) int {
	for u[x] != x {
		u[x] = u[u[x]]
		x = u[x]
	}
	return x
}

func (u unionFind) union(a, b int) {
	ra, rb := u.find(a), u.find(b)
	if ra != rb {
		u[max(ra, rb)] = min(ra, rb)
	}
}

// restrictKnown keeps the desired UIDs and result entries of one part.
func restrictKnown(in ops.SyncKnownPods, out ops.Output, uids map[string]bool) (ops.SyncKnownPods, ops.Output) {
	var desired []string
	for _, uid := range in.Desired {
		if uids[uid] {
			desired = append(desired, uid)
		}
	}
	known, _ := out.(ops.KnownPods)
	var kept ops.KnownPods
	for _, k := range known {
		if uids[k.UID] {
			kept = append(kept, k)
		}
	}
	return ops.SyncKnownPods{Desired: desired}, kept
}

// boolBit orders false before true (a copy of model's helper).
func boolBit(b bool) int {
	if b {
		return 1
	}
	return 0
}
