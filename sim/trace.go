package sim

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
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

func (s *Scheduler) rec(o op, obj int32, arg int64) {
	g := int32(-1)
	if s.cur != nil {
		g = s.cur.id
	}
	s.recAs(g, o, obj, arg)
}

func (s *Scheduler) recAs(g int32, o op, obj int32, arg int64) {
	if s.unwinding {
		return
	}
	s.trace.add(record{arg: arg, obj: obj, g: int16(g), op: o})
}

// Trace returns the canonical trace of the run so far: one line per
// operation, "<virtual time> <goroutine> <op> [<object>] [<detail>]". It
// names goroutines and objects by the names they were given and holds no
// pointers, goroutine ids, wall-clock times or map order, so the same
// program, Source and Options give the same bytes on every machine.
func (s *Scheduler) Trace() string {
	var b strings.Builder
	b.Grow(s.trace.len() * 40)
	s.renderTrace(func(p []byte) { b.Write(p) })
	return b.String()
}

// TraceSHA256 is the hex SHA-256 of Trace: equal hashes, equal runs. It
// hashes the trace as it is rendered, in chunks, without building it: every
// seed of a sweep asks for it.
func (s *Scheduler) TraceSHA256() string {
	h := sha256.New()
	s.renderTrace(func(p []byte) { h.Write(p) })
	return hex.EncodeToString(h.Sum(nil))
}

// traceChunk is how much rendered trace renderTrace hands on at a time.
const traceChunk = 4 << 10

// renderTrace renders the trace, one line per record, into a buffer that
// it hands to sink whenever it fills and at the end (sink must not keep
// it). The text of the current time is rendered once per clock advance.
func (s *Scheduler) renderTrace(sink func(p []byte)) {
	buf := make([]byte, 0, traceChunk+256)
	atText := []byte(time.Duration(0).String())
	s.trace.each(func(_ int, r *record) {
		if r.op == opAdvance {
			atText = append(atText[:0], time.Duration(r.arg).String()...)
		}
		buf = s.appendRecord(buf, atText, r)
		buf = append(buf, '\n')
		if len(buf) >= traceChunk {
			sink(buf)
			buf = buf[:0]
		}
	})
	sink(buf)
}

// TraceLen is the number of trace records.
func (s *Scheduler) TraceLen() int { return s.trace.len() }

// appendRecord appends one trace line (without its newline) to b.
func (s *Scheduler) appendRecord(b []byte, atText []byte, r *record) []byte {
	b = append(b, atText...)
	b = append(b, ' ')
	b = append(b, s.gname(int32(r.g))...)
	b = append(b, ' ')
	b = append(b, r.op.String()...)
	if r.obj >= 0 {
		b = append(b, ' ')
		b = append(b, s.objects[r.obj].name...)
	}
	return s.appendDetail(b, r)
}

func (s *Scheduler) gname(id int32) string {
	if id < 0 {
		return "-"
	}
	return s.all[id].name
}

// detail renders the op-specific argument of a record ("" if none).
func (s *Scheduler) detail(r *record) string {
	d := s.appendDetail(nil, r)
	if len(d) == 0 {
		return ""
	}
	return string(d[1:])
}

// appendDetail appends the op-specific argument of a record, after a
// space, if it has one.
func (s *Scheduler) appendDetail(b []byte, r *record) []byte {
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
		return append(append(b, ' '), time.Duration(r.arg).String()...)
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
