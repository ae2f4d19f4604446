package model

import "slices"

// Closure mechanics: sets of distinct states, and the closure under hidden
// worker steps computed once per distinct state.
//
// Internally a closed set is a list of *node: a state, its hash, and once
// closure has visited it, its successors by one hidden step (as nodes of the
// set it was closed in). A node is written only while closure builds the
// set that first holds it, then never again, so closed sets can be shared
// (between porcupine's search branches, for instance). A state that an
// operation leaves unchanged keeps its node, so closing the next set
// re-derives nothing for it, and a set that an operation leaves entirely
// unchanged is handed back as is.
type node struct {
	s    State
	hash uint64
	next []*node
	done bool      // next is computed
	rec  [1]Record // s.recs of a one-record state
}

func newNode(s State) *node { return keep(s, s.hash()) }

// keep makes a node of s: published, its records in memory of its own (a
// partition's state usually has one record, kept inside the node).
func keep(s State, h uint64) *node {
	n := &node{hash: h}
	s.publish()
	switch {
	case len(s.recs) == 1:
		n.rec[0] = s.recs[0]
		s.recs = n.rec[:1:1]
	case s.arena != nil && len(s.recs) > 1:
		s.recs = slices.Clone(s.recs)
	}
	s.arena = nil
	n.s = s
	return n
}

// initialSet is the closed set of the object right after kubelet start.
func initialSet() []*node { return closure([]*node{newNode(State{})}, nil) }

// nodesOf and statesOf convert between the exported []State and nodes.
func nodesOf(states []State) []*node {
	nodes := make([]*node, len(states))
	for i, s := range states {
		nodes[i] = newNode(s)
	}
	return nodes
}

func statesOf(nodes []*node) []State {
	states := make([]State, len(nodes))
	for i, n := range nodes {
		states[i] = n.s.withViews()
	}
	return states
}

// nodeSet is a list of distinct nodes in insertion order. Small sets (the
// common case) are searched by scanning their hashes; larger ones index them.
type nodeSet struct {
	nodes []*node
	index map[uint64][]int32
}

const setIndexFrom = 32

// find returns the member equal to s (with hash h), or nil.
func (set *nodeSet) find(s *State, h uint64) *node {
	if set.index != nil {
		for _, i := range set.index[h] {
			if n := set.nodes[i]; n.s.equal(s) {
				return n
			}
		}
		return nil
	}
	for _, n := range set.nodes {
		if n.hash == h && n.s.equal(s) {
			return n
		}
	}
	return nil
}

// add inserts n unless an equal node is present, and returns the member.
func (set *nodeSet) add(n *node) *node {
	for _, m := range set.nodes {
		if m == n {
			return m
		}
	}
	if m := set.find(&n.s, n.hash); m != nil {
		return m
	}
	set.insert(n)
	return n
}

// addState is add for a state that has no node yet.
func (set *nodeSet) addState(s State) *node {
	h := s.hash()
	if m := set.find(&s, h); m != nil {
		return m
	}
	n := keep(s, h)
	set.insert(n)
	return n
}

func (set *nodeSet) insert(n *node) {
	i := len(set.nodes)
	set.nodes = append(set.nodes, n)
	switch {
	case set.index != nil:
		set.index[n.hash] = append(set.index[n.hash], int32(i))
	case len(set.nodes) == setIndexFrom:
		set.index = make(map[uint64][]int32, 2*setIndexFrom)
		for j, m := range set.nodes {
			set.index[m.hash] = append(set.index[m.hash], int32(j))
		}
	}
}

// closure returns seeds plus every state reachable from them by hidden
// worker steps, without duplicates, seeds first then breadth-first (the
// order of Closure). Every returned node is done. The states it tries
// borrow record arrays from arena (nil: the heap).
func closure(seeds []*node, arena *recordArena) []*node {
	set := nodeSet{nodes: make([]*node, 0, 2*len(seeds))}
	for _, n := range seeds {
		set.add(n)
	}
	var buf []State
	if arena != nil {
		buf = arena.tried
		defer func() { arena.tried = buf }()
	}
	var links []*node // one array for the new nodes' successor lists
	for i := 0; i < len(set.nodes); i++ {
		n := set.nodes[i]
		if n.done {
			for _, m := range n.next {
				set.add(m)
			}
			continue
		}
		buf = hiddenSteps(buf[:0], n.s.withArena(arena))
		if len(buf) > 0 {
			if cap(links)-len(links) < len(buf) {
				links = make([]*node, 0, max(2*len(set.nodes), len(buf), 16))
			}
			from := len(links)
			for _, s := range buf {
				links = append(links, set.addState(s))
			}
			n.next = links[from:len(links):len(links)]
		}
		n.done = true
	}
	return set.nodes
}

// setHash combines the hashes of a set's members, in any order.
func setHash(nodes []*node) uint64 {
	var h uint64
	for _, n := range nodes {
		h += n.hash ^ (n.hash>>31)*hashPrime
	}
	return h
}

// sameSet reports whether two sets of distinct nodes have the same members.
func sameSet(a, b []*node) bool {
	if len(a) != len(b) {
		return false
	}
	if len(a) == 0 || &a[0] == &b[0] {
		return true
	}
	for _, n := range a {
		found := false
		for _, m := range b {
			if m == n || (m.hash == n.hash && m.s.equal(&n.s)) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// nextClosed steps every state of a closed set and closes the result. If
// some state admits the operation it returns the new closed set — nodes
// itself when the operation changed none and rejected none — else nil and
// the rejections (formatted only if someone reads them).
func nextClosed(nodes []*node, op *PartOp) ([]*node, []error) {
	arena := arenas.Get().(*recordArena)
	defer func() { arena.reset(); arenas.Put(arena) }()
	seeds := make([]*node, 0, len(nodes)+1)
	var errs []error
	buf := arena.steps
	defer func() { arena.steps = buf }()
	unchanged := true
	for _, n := range nodes {
		var err error
		buf, err = op.Apply(buf[:0], n.s.clone().withArena(arena))
		switch {
		case err != nil:
			errs = append(errs, err)
			unchanged = false
		case len(buf) == 1 && buf[0].equal(&n.s):
			seeds = append(seeds, n)
		default:
			unchanged = false
			for _, s := range buf {
				seeds = append(seeds, newNode(s))
			}
		}
	}
	switch {
	case len(seeds) == 0:
		return nil, errs
	case unchanged:
		return nodes, nil
	}
	return closure(seeds, arena), nil
}
