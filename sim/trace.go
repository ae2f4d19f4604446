package sim

import (
	"crypto/sha256"
	"encoding/hex"
	"hash"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"
)

// op is what one trace record says happened.
type op uint8

const (
	opNone op = iota
	opGo
	opExit
	opPanic
	opHalt
	opYield
	opSleep
	opWake
	opAdvance
	opRand
	opLock
	opLockWait
	opUnlock
	opNotify
	opWait
	opWaitBlock
	opTryWait
	opClose
	opFire
	opFired
	opEventWait
	opEventBlock
	opTimeout
)

var opNames = [...]string{
	opNone: "none", opGo: "go", opExit: "exit", opPanic: "panic", opHalt: "halt",
	opYield: "yield", opSleep: "sleep", opWake: "wake", opAdvance: "advance", opRand: "rand",
	opLock: "lock", opLockWait: "lock-wait", opUnlock: "unlock",
	opNotify: "notify", opWait: "wait", opWaitBlock: "wait-block", opTryWait: "try-wait", opClose: "close",
	opFire: "fire", opFired: "fired?", opEventWait: "event-wait", opEventBlock: "event-block", opTimeout: "timeout",
}

func (o op) String() string { return opNames[o] }

type objKind uint8

const (
	kindMutex objKind = iota
	kindSignal
	kindEvent
)

var kindNames = [...]string{kindMutex: "mutex", kindSignal: "signal", kindEvent: "event"}

type object struct {
	kind objKind
	name string
}

// record is one trace entry, 16 bytes, kept compact while the run goes and
// rendered to text only when asked for. It holds no time: virtual time moves
// only at opAdvance records, whose arg is the new time since the epoch.
type record struct {
	arg int64
	obj int32 // object, -1 for none
	g   int16 // acting goroutine, -1 for the scheduler itself
	op  op
}

func (s *Scheduler) object(k objKind, name string) int32 {
	s.objects = append(s.objects, object{kind: k, name: name})
	return int32(len(s.objects) - 1)
}

// rec records an operation of the goroutine holding the baton (of the
// scheduler itself outside a run). It and recAs are inlined up to their
// test of mute, so that an untraced run, or Close, pays no call for a
// record it does not keep.
func (s *Scheduler) rec(o op, obj int32, arg int64) {
	if !s.mute {
		s.recCur(o, obj, arg)
	}
}

// recAs records an operation of goroutine g (-1: the scheduler).
func (s *Scheduler) recAs(g int32, o op, obj int32, arg int64) {
	if !s.mute {
		s.record(g, o, obj, arg)
	}
}

func (s *Scheduler) recCur(o op, obj int32, arg int64) {
	g := int16(-1)
	if s.cur != nil {
		g = int16(s.cur.id)
	}
	s.trace.add(record{arg: arg, obj: obj, g: g, op: o})
}

func (s *Scheduler) record(g int32, o op, obj int32, arg int64) {
	s.trace.add(record{arg: arg, obj: obj, g: int16(g), op: o})
}

// Trace returns the canonical trace of the run so far: one line per
// operation, "<virtual time> <goroutine> <op> [<object>] [<detail>]". It
// names goroutines and objects by the names they were given and holds no
// pointers, goroutine ids, wall-clock times or map order, so the same
// program, Source and Options give the same bytes on every machine.
func (s *Scheduler) Trace() string {
	s.mustBeTraced("Trace")
	var b strings.Builder
	b.Grow(s.trace.len() * 40)
	s.renderTrace(make([]byte, 0, traceChunk+256), &b, new(lineCache))
	return b.String()
}

// TraceSHA256 is the hex SHA-256 of Trace: equal hashes, equal runs. It
// streams the trace into the hash as it renders it, a buffer at a time,
// without building it: every seed of a sweep asks for it. The hash and
// the buffer are reused from call to call (traceHashers).
func (s *Scheduler) TraceSHA256() string {
	s.mustBeTraced("TraceSHA256")
	th := traceHashers.Get().(*traceHasher)
	th.h.Reset()
	th.buf = s.renderTrace(th.buf, th.h, &th.lines)
	var sum [sha256.Size]byte
	var text [2 * sha256.Size]byte
	hex.Encode(text[:], th.h.Sum(sum[:0]))
	traceHashers.Put(th)
	return string(text[:])
}

// traceHasher is a SHA-256, the buffer a trace is rendered into for it
// and the texts of its lines (renderTrace empties them first).
type traceHasher struct {
	h     hash.Hash
	buf   []byte
	lines lineCache
}

var traceHashers = sync.Pool{New: func() any {
	return &traceHasher{h: sha256.New(), buf: make([]byte, 0, traceChunk+256)}
}}

// traceChunk is how much rendered trace renderTrace writes at a time.
const traceChunk = 4 << 10

// renderTrace renders the trace, one line per record, into buf, writing it
// to w whenever it holds traceChunk bytes and at the end; it returns buf
// emptied, for reuse. The text of the current time is rendered once per
// clock advance, a repeated record's text once per render (lines).
func (s *Scheduler) renderTrace(buf []byte, w io.Writer, lines *lineCache) []byte {
	var atArr [32]byte
	var durs durationTexts
	at := append(atArr[:0], "0s"...)
	buf = buf[:0]
	lines.reset()
	for _, c := range s.trace.full {
		buf, at = s.renderRecords(buf, at, c, w, &durs, lines)
	}
	buf, _ = s.renderRecords(buf, at, s.trace.last, w, &durs, lines)
	w.Write(buf)
	return buf[:0]
}

// renderRecords appends the lines of records to buf (at is the text of the
// time, updated at each clock advance), writing buf to w and emptying it
// whenever it holds traceChunk bytes; durs keeps the durations' texts and
// lines the lines'.
func (s *Scheduler) renderRecords(buf, at []byte, records []record, w io.Writer, durs *durationTexts, lines *lineCache) ([]byte, []byte) {
	for i := range records {
		r := &records[i]
		if r.op == opAdvance {
			at = append(at[:0], time.Duration(r.arg).String()...)
		}
		buf = s.appendLine(buf, at, r, durs, lines)
		if len(buf) >= traceChunk {
			w.Write(buf)
			buf = buf[:0]
		}
	}
	return buf, at
}

// TraceLen is the number of trace records.
func (s *Scheduler) TraceLen() int {
	s.mustBeTraced("TraceLen")
	return s.trace.len()
}

// appendRecordText appends what follows the time in r's trace line.
func (s *Scheduler) appendRecordText(b []byte, r *record, durs *durationTexts) []byte {
	b = append(b, ' ')
	b = append(b, s.gname(int32(r.g))...)
	b = append(b, ' ')
	b = append(b, r.op.String()...)
	if r.obj >= 0 {
		b = append(b, ' ')
		b = append(b, s.objects[r.obj].name...)
	}
	return s.appendDetail(b, r, durs)
}

func (s *Scheduler) gname(id int32) string {
	if id < 0 {
		return "-"
	}
	return s.all[id].name
}

// detail renders the op-specific argument of a record ("" if none).
func (s *Scheduler) detail(r *record) string {
	d := s.appendDetail(nil, r, nil)
	if len(d) == 0 {
		return ""
	}
	return string(d[1:])
}

// appendDetail appends the op-specific argument of a record, after a
// space, if it has one; durs (nil: none) keeps the durations' texts.
func (s *Scheduler) appendDetail(b []byte, r *record, durs *durationTexts) []byte {
	switch r.op {
	case opGo, opWake:
		if name := s.gname(int32(r.arg)); name != "" {
			return append(append(b, ' '), name...)
		}
	case opTimeout:
		return append(append(b, " for "...), s.gname(int32(r.arg))...)
	case opLockWait:
		return append(append(b, " held-by "...), s.gname(int32(r.arg))...)
	case opUnlock:
		if r.arg >= 0 {
			return append(append(b, " to "...), s.gname(int32(r.arg))...)
		}
	case opSleep, opEventBlock:
		if r.arg < 0 {
			return append(b, " forever"...)
		}
		return durs.append(append(b, ' '), time.Duration(r.arg))
	case opRand:
		b = strconv.AppendInt(append(b, ' '), r.arg&0xffffffff, 10)
		return strconv.AppendInt(append(b, " of "...), r.arg>>32, 10)
	case opWait, opTryWait, opFired, opEventWait:
		return strconv.AppendBool(append(b, ' '), r.arg == 1)
	case opAdvance:
		return append(b, " clock"...)
	}
	return b
}

// durationTexts keeps the texts of the durations a trace renders, one per
// slot, the slot chosen by a hash of the duration: a run's sleeps and
// timeouts repeat a few periods, and time.Duration.String costs a few
// hundred instructions.
type durationTexts [8]struct {
	d    time.Duration
	n    uint8 // the text's length; 0: an empty slot
	text [32]byte
}

// append appends d's text (time.Duration.String) to b.
func (t *durationTexts) append(b []byte, d time.Duration) []byte {
	if t == nil {
		return append(b, d.String()...)
	}
	e := &t[uint64(d)*0x9e3779b97f4a7c15>>61]
	if e.n == 0 || e.d != d {
		e.d, e.n = d, uint8(copy(e.text[:], d.String()))
	}
	return append(b, e.text[:e.n]...)
}
