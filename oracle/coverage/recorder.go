package coverage

import (
	"slices"
	"strings"
)

// Recorder keeps the tuples a run reached and the transitions between a
// subject's consecutive tuples, whatever the tuple says: the kubelet's
// Tracker and the virtual-kubelet controller's (package oracle/vkcoverage)
// build their tuples and record them here.
type Recorder struct {
	tuples map[string]int      // every tuple reached → its index in list
	list   []string            // every tuple reached, in order of first reach
	trans  map[uint64]struct{} // transitions, as indices in list (transitionKey)
	// texts holds every tuple's text, one after another: a tuple's string
	// is a slice of it (Builder's String copies nothing, and a write never
	// changes what an earlier String returned), so a run's tuples take a
	// few growing buffers, not a string each.
	texts strings.Builder
	near  map[string]bool // near misses (Near), nil before the first
}

// NewRecorder returns an empty recorder.
func NewRecorder() *Recorder {
	r := &Recorder{}
	r.init()
	return r
}

func (r *Recorder) init() {
	r.tuples, r.list, r.trans = map[string]int{}, make([]string, 0, 32), map[uint64]struct{}{}
	r.texts.Grow(textsRoom)
}

// textsRoom is what a kubelet run's tuple texts take, about: texts starts
// with that room, one allocation instead of one per doubling.
const textsRoom = 1 << 10

// reset empties r as init makes it, its map and list kept. Its texts
// start a new buffer: the strings of an earlier Coverage still read the
// old one.
func (r *Recorder) reset() {
	clear(r.tuples)
	clear(r.trans)
	*r = Recorder{tuples: r.tuples, list: r.list[:0], trans: r.trans}
	r.texts.Grow(textsRoom)
}

// Visit records that a subject reached tuple, and the transition from its
// previous tuple. last is the handle Visit returned for the subject's
// previous tuple (0 before its first); Visit returns the new one. The
// tuple's bytes are copied only when the run reaches it first.
func (r *Recorder) Visit(last int, tuple []byte) int {
	if last > 0 && string(tuple) == r.list[last-1] {
		return last // most events leave the tuple as it was: nothing to allocate
	}
	i, seen := r.tuples[string(tuple)]
	if !seen {
		start := r.texts.Len()
		r.texts.Write(tuple)
		text := r.texts.String()[start:]
		i = len(r.list)
		r.tuples[text] = i
		r.list = append(r.list, text)
	}
	if last > 0 {
		r.trans[transitionKey(last-1, i)] = struct{}{}
	}
	return i + 1
}

// Near records an oracle's near miss (package oracle/nearmiss): rule met
// its precondition in situation and held. The run's Coverage lists it as
// "<rule>/<situation>".
func (r *Recorder) Near(rule, situation string) {
	if r.near == nil {
		r.near = map[string]bool{}
	}
	r.near[rule+"/"+situation] = true
}

// Coverage returns what the run reached so far.
func (r *Recorder) Coverage() Coverage {
	// order lists the tuples' indices in list by their text; index maps
	// an index in list to the tuple's place in the sorted Tuples.
	order := make([]int, 2*len(r.list))
	order, index := order[:len(r.list)], order[len(r.list):]
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return strings.Compare(r.list[a], r.list[b]) })
	tuples := make([]string, len(order))
	for place, i := range order {
		tuples[place], index[i] = r.list[i], place
	}
	// Keys of the sorted indices sort as the pairs do: by from, then to.
	var room [128]uint64 // most runs' transitions: no allocation
	keys := room[:0]
	if len(r.trans) > len(room) {
		keys = make([]uint64, 0, len(r.trans))
	}
	for k := range r.trans {
		keys = append(keys, transitionKey(index[k>>32], index[k&0xffffffff]))
	}
	slices.Sort(keys)
	trans := make([][2]int, len(keys))
	for j, k := range keys {
		trans[j] = [2]int{int(k >> 32), int(k & 0xffffffff)}
	}
	var near []string
	if len(r.near) > 0 {
		near = make([]string, 0, len(r.near))
		for k := range r.near {
			near = append(near, k)
		}
		slices.Sort(near)
	}
	return Coverage{Tuples: tuples, Transitions: trans, Near: near}
}

// transitionKey is the transition between the tuples of indices from and
// to as one map key: from in the high half, to in the low (a run reaches
// far fewer than 2³² tuples), so keys order as the pairs do.
func transitionKey(from, to int) uint64 { return uint64(from)<<32 | uint64(to) }
