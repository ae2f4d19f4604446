package history

import (
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/podsim/podsim/model/ops"
)

// The recorder turns the World's event stream into the history the
// linearizability oracle checks, in two orders at once: porcupine's
// intervals (what any observer of the calls could know) and the order in
// which each operation took effect (what only the simulation knows). The
// second order is the witness: replaying it through the model is linear,
// and a legal replay proves the history linearizable without a search.
//
// Recording contract (model/doc.go "Recording contract", check.Replay):
//
//   - A client call (ClientCall … ClientReturn with one ID) is the interval
//     [2·call seq, 2·return seq]. Callback entry and return (SyncBegin,
//     SyncEnd), a failed status read (StatusReadFailed) and fires
//     (CompletionFired, CancelFired) are points: event
//     seq s becomes [2s, 2s+1], so two points never overlap and a point
//     inside a call stays inside it.
//   - Effect order: UpdatePod, SyncKnownPods and queries take effect in
//     their first pod-lock critical section, i.e. at the first LockAcquired
//     by the calling goroutine while the call is open (at the call itself if
//     that goroutine already holds the lock). KillPodNowDone (killPodNow's
//     wait) does not take the lock and takes effect at its return, as does
//     any call that returns without taking the lock. Points take effect at
//     their own seq. Every effect seq lies inside the operation's interval,
//     so the effect order is a linearization whenever the model accepts it.
//   - Worker-step markers (ops.WorkerStep{UID}, witness mode): one at
//     every LockAcquired by a goroutine worker/<uid>, in the effect order
//     only. Caveat: a worker goroutine whose record was purged may still
//     run one last, empty critical section under the same name as the
//     worker of the UID's next record; its marker is then misplaced, the
//     marked replay fails, and the oracle replays without markers (see
//     replayWitness). The events cannot tell the two goroutines apart.
//   - Rows (porcupine's ClientId, for the visualisation only): one per
//     goroutine, numbered in order of first appearance; fires get a row of
//     their own ("fired"), since they happen inside other goroutines' calls.
//   - A call still open at the end (the run failed, or was cut off) makes
//     the history end just before that call's effect: every operation that
//     took effect earlier is kept, every later one dropped (see History).

// Recorder is an Observer that records a run's history; History returns it.
// It reads only the events, never the pod workers.
type Recorder struct {
	ops      []recOp
	opsBox   *[]recOp         // the pool's box ops came in (recorderOps), for Recycle to put it back in
	open     Few[int, int]    // ClientCall ID → index in ops, until its return
	awaiting Few[string, int] // goroutine → its open call still waiting for the pod lock
	holder   string           // goroutine holding the pod lock, "" if none
	// rows numbers the operations' rows (goroutine names) and rowNames
	// names them, for History alone: the rows of ops[:rowsDone] are
	// numbered (History numbers the rest), in the order of the operations,
	// which is the order of the rows' first appearance.
	rows     map[string]int
	rowNames []string
	rowsDone int
	clock    []ClockMark
	// shared: a History shares the arrays of rowNames and clock, so Reset
	// makes new ones; without one (a run judged without its History) it
	// keeps them, emptied.
	shared bool
	lastAt time.Duration
	step   func(uid string) ops.Input
	// workers holds per UID the index in markers of the newest worker
	// generation seen (markers of older ones are left out, workerOf) and
	// its marker's input, made once.
	workers *Lookup[string, int]
	markers []workerMarker
	// effects lists the operations in the order their effects were
	// recorded (took): by Seq, ties by index, as History's effect order is,
	// unless unordered (a target whose Seqs go back; History sorts then).
	effects   []int
	unordered bool
	// given holds the arrays of the History taken last (History), spare
	// those of the run before Reset: the next History writes into them.
	given, spare historyArrays
	// witness is the History taken last's witness (Witness).
	witness []ops.Op
}

// historyArrays are the arrays a History's slices are built in.
type historyArrays struct {
	kept    []int
	ops     []porcupine.Operation
	effects []Effect
	metas   []opMetadata
}

// workerMarker is what the recorder keeps of one UID's worker.
type workerMarker struct {
	gen  int
	step ops.Input // r.step(uid), boxed once, shared by its markers
}

// recOp is one operation as recorded; seqs are 0 until known.
type recOp struct {
	in                 ops.Input
	out                ops.Output
	g                  string // its row's name (History numbers it: row)
	row                int
	call, ret, effect  int64
	callAt, effectAt   time.Duration
	witnessOnly, point bool
}

// ClockMark is the first event at a new virtual time: the clock jumped to At
// just before event Seq (for the visualisation's annotations).
type ClockMark struct {
	Seq int64
	At  time.Duration
}

// NewRecorder returns an empty recorder.
func NewRecorder() *Recorder {
	box := recorderOps.Get().(*[]recOp)
	return &Recorder{ops: (*box)[:0], opsBox: box,
		rows: map[string]int{}, rowNames: newRowNames(), clock: newClock(), step: witnessWorkerStep, workers: NewLookup[string, int]()}
}

// recorderOps keeps the operation buffers of recorders that are done
// (Recycle) for the next NewRecorder in the process: a sweep records seed
// after seed, hundreds to thousands of operations each. A buffer is handed
// out empty and cleared: nothing of one history reaches another.
var recorderOps = sync.Pool{New: func() any {
	var ops []recOp
	return &ops
}}

// Recycle hands the recorder's operation buffer to the next NewRecorder,
// once the history has been taken (History copies what it returns): the
// recorder is empty afterwards and must not observe again.
//
// Only the operations recorded are cleared: a buffer is handed out
// cleared to its capacity and only ever appended to (add), so nothing past
// its length was written. Clearing to the capacity cost more than the
// recording of a short run: a pooled buffer keeps the room of the
// longest history it held.
func (r *Recorder) Recycle() {
	ops := r.ops
	clear(ops) // no operation's input or output stays reachable
	ops = ops[:cap(ops)]
	box := r.opsBox
	r.ops, r.opsBox = nil, nil
	if cap(ops) > 0 {
		if box == nil {
			box = new([]recOp)
		}
		*box = ops[:0] // the box the buffer came in: putting it back allocates nothing
		recorderOps.Put(box)
	}
}

// Reset empties r for a new run, as NewRecorder makes it: its operation
// buffer recycled (Recycle) and one taken afresh, its maps emptied and
// kept. The arrays of Rows and Clock are kept, emptied, only when no
// History was taken since the last Reset: a History shares them. The
// arrays of the History taken last are kept for the next run's: that
// History must not be read after Reset (a lane's next seed).
func (r *Recorder) Reset() {
	r.Recycle()
	r.open.Reset()
	r.awaiting.Reset()
	clear(r.rows)
	r.workers.Reset()
	clear(r.markers)
	clear(r.witness)
	rowNames, clock := r.rowNames[:0], r.clock[:0]
	if r.shared || rowNames == nil {
		rowNames, clock = newRowNames(), newClock()
	}
	clear(rowNames[:cap(rowNames)]) // no name of this run stays reachable
	box := recorderOps.Get().(*[]recOp)
	*r = Recorder{ops: (*box)[:0], opsBox: box, open: r.open, awaiting: r.awaiting, rows: r.rows,
		rowNames: rowNames, clock: clock, step: witnessWorkerStep, workers: r.workers, markers: r.markers[:0],
		effects: r.effects[:0], witness: r.witness[:0], spare: r.given}
}

// newRowNames and newClock are a run's empty Rows and Clock, with room for
// a kubelet run's (no growth from nothing: 1, 2, 4 …).
func newRowNames() []string { return make([]string, 0, 16) }
func newClock() []ClockMark { return make([]ClockMark, 0, 32) }

// Observe implements Observer.
func (r *Recorder) Observe(ev *Event) {
	if ev.Kind == Noted {
		return
	}
	if ev.At != r.lastAt {
		r.clock = append(r.clock, ClockMark{Seq: ev.Seq, At: ev.At})
		r.lastAt = ev.At
	}
	switch ev.Kind {
	case ClientCall:
		i := r.add(recOp{in: ev.Input, g: ev.Goroutine, call: ev.Seq, callAt: ev.At})
		r.open.Set(ev.ID, i)
		switch {
		case !takesPodLock(ev.Input):
		case r.holder == ev.Goroutine:
			r.took(i, ev)
		default:
			r.awaiting.Set(ev.Goroutine, i)
		}
	case ClientReturn:
		r.returned(ev)
	case LockAcquired:
		r.holder = ev.Goroutine
		if i, ok := r.awaiting.Take(ev.Goroutine); ok {
			r.took(i, ev)
		}
		if uid, gen, ok := WorkerOf(ev.Goroutine); ok && r.step != nil {
			r.workerStep(ev, uid, gen)
		}
	case LockReleasing:
		r.holder = ""
	case CallbackBegin, CallbackEnd, Fired, ReadFailed:
		row := ev.Goroutine
		if ev.Kind == Fired {
			row = "fired"
		}
		r.took(r.add(recOp{in: ev.Input, g: row, call: ev.Seq, ret: ev.Seq, callAt: ev.At, point: true}), ev)
	}
}

// workerStep records the worker-step marker of uid's worker of generation
// gen taking the pod lock at ev. A worker of an older generation is the
// exiting worker of a purged incarnation: its last critical section is not
// a step of the current record.
func (r *Recorder) workerStep(ev *Event, uid string, gen int) {
	i, seen := r.workers.Get(uid)
	if !seen {
		if gen < 0 { // older than a UID's first marker (gen 0)
			return
		}
		i = len(r.markers)
		r.workers.Set(uid, i)
		r.markers = append(r.markers, workerMarker{step: r.step(uid)})
	}
	w := &r.markers[i]
	if gen < w.gen {
		return
	}
	w.gen = gen
	r.took(r.add(recOp{in: w.step, g: ev.Goroutine, call: ev.Seq, ret: ev.Seq,
		callAt: ev.At, witnessOnly: true, point: true}), ev)
}

// returned closes a call; one that never took the pod lock takes effect now.
func (r *Recorder) returned(ev *Event) {
	i, ok := r.open.Take(ev.ID)
	if !ok {
		panic(fmt.Sprintf("history: recorder: return of unknown call %d at event %d", ev.ID, ev.Seq))
	}
	op := &r.ops[i]
	op.out, op.ret = ev.Output, ev.Seq
	if res, ok := op.out.(ops.UpdateResult); ok {
		// The cache view the call read is its input (ops.UpdateResult).
		u := op.in.(ops.UpdatePod)
		u.Cache = res.Cache
		op.in, op.out = u, nil
	}
	if op.effect == 0 {
		r.took(i, ev)
	}
	if j, ok := r.awaiting.Get(ev.Goroutine); ok && j == i {
		r.awaiting.Del(ev.Goroutine)
	}
}

func (r *Recorder) add(op recOp) int {
	r.ops = append(r.ops, op)
	return len(r.ops) - 1
}

func (r *Recorder) row(name string) int {
	id, ok := r.rows[name]
	if !ok {
		id = len(r.rowNames)
		r.rows[name] = id
		r.rowNames = append(r.rowNames, name)
	}
	return id
}

// takesPodLock reports the client calls that take effect under the pod lock.
func takesPodLock(in ops.Input) bool {
	switch in.(type) {
	case ops.UpdatePod, ops.SyncKnownPods, ops.Query:
		return true
	}
	return false
}

// History returns what was recorded so far. A call that took effect but
// never returned has an unknown output and may have changed the state, so
// the history is cut at the earliest such effect: a prefix of the effect
// order is a prefix of a linearization, so the cut never causes a false
// alarm, and everything that happened before it is still checked. Calls
// that never took effect are dropped (they changed nothing).
func (r *Recorder) History() History {
	// Rows and Clock are only ever appended to: the history shares their
	// arrays, clipped, so an append on either side cannot reach the other.
	for i := r.rowsDone; i < len(r.ops); i++ {
		r.ops[i].row = r.row(r.ops[i].g)
	}
	r.rowsDone = len(r.ops)
	h := History{Rows: slices.Clip(r.rowNames), Clock: slices.Clip(r.clock), Cut: r.cut()}
	r.shared = true
	a := r.spare // empty but after a Reset: then the last run's arrays
	r.spare = historyArrays{}
	kept := grown(a.kept, len(r.ops))[:len(r.ops)] // ops index → Ops index, or -1
	h.Ops = grown(a.ops, len(r.ops))
	h.Effects = grown(a.effects, len(r.ops))
	// The operations' metadata, one array: each Operation points into it
	// (fmt prints a *opMetadata as the opMetadata: String).
	metas := grown(a.metas, len(r.ops))
	for i, op := range r.ops {
		kept[i] = -1
		if op.witnessOnly {
			continue
		}
		if !op.tookEffectBefore(h.Cut) {
			h.Dropped++
			continue
		}
		kept[i] = len(h.Ops)
		metas = append(metas, op.metadata(r.rowNames))
		h.Ops = append(h.Ops, porcupine.Operation{ClientId: op.row, Input: op.in, Output: op.out,
			Call: 2 * op.call, Return: op.returnStamp(), Metadata: &metas[len(metas)-1]})
	}
	h.Effects = r.effectOrder(h.Effects, kept, h.Cut)
	r.given = historyArrays{kept: kept[:0], ops: h.Ops[:0], effects: h.Effects[:0], metas: metas[:0]}
	if len(h.Ops) == 0 { // nil, as when appended to from nothing
		h.Ops = nil
	}
	if len(h.Effects) == 0 {
		h.Effects = nil
	}
	return h
}

// grown is b emptied, with room for n elements: b's array if it has the
// room, else a new one.
func grown[T any](b []T, n int) []T {
	if cap(b) < n {
		return make([]T, 0, n)
	}
	return b[:0]
}

func (op recOp) returnStamp() int64 {
	if op.point {
		return 2*op.call + 1
	}
	return 2 * op.ret
}

// metadata is the tooltip of an operation in the visualisation, rendered
// only if porcupine's HTML is written (fmt calls String).
func (op recOp) metadata(rows []string) opMetadata {
	return opMetadata{row: rows[op.row], call: op.call, ret: op.ret, effect: op.effect, at: op.effectAt, point: op.point}
}

type opMetadata struct {
	row               string
	call, ret, effect int64
	at                time.Duration
	point             bool
}

func (m opMetadata) String() string {
	if m.point {
		return fmt.Sprintf("%s event %d at %v", m.row, m.call, m.at)
	}
	return fmt.Sprintf("%s events %d–%d, took effect at event %d (%v)", m.row, m.call, m.ret, m.effect, m.at)
}
