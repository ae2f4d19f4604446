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
	s.trace = append(s.trace, record{arg: arg, obj: obj, g: int16(g), op: o})
}

// Trace returns the canonical trace of the run so far: one line per
// operation, "<virtual time> <goroutine> <op> [<object>] [<detail>]". It
// names goroutines and objects by the names they were given and holds no
// pointers, goroutine ids, wall-clock times or map order, so the same
// program, Source and Options give the same bytes on every machine.
func (s *Scheduler) Trace() string {
	var b strings.Builder
	b.Grow(len(s.trace) * 40)
	var at time.Duration
	for i := range s.trace {
		r := &s.trace[i]
		if r.op == opAdvance {
			at = time.Duration(r.arg)
		}
		s.writeRecord(&b, at, r)
		b.WriteByte('\n')
	}
	return b.String()
}

// TraceSHA256 is the hex SHA-256 of Trace: equal hashes, equal runs.
func (s *Scheduler) TraceSHA256() string {
	sum := sha256.Sum256([]byte(s.Trace()))
	return hex.EncodeToString(sum[:])
}

// TraceLen is the number of trace records.
func (s *Scheduler) TraceLen() int { return len(s.trace) }

func (s *Scheduler) writeRecord(b *strings.Builder, at time.Duration, r *record) {
	b.WriteString(at.String())
	b.WriteByte(' ')
	b.WriteString(s.gname(int32(r.g)))
	b.WriteByte(' ')
	b.WriteString(r.op.String())
	if r.obj >= 0 {
		b.WriteByte(' ')
		b.WriteString(s.objects[r.obj].name)
	}
	if d := s.detail(r); d != "" {
		b.WriteByte(' ')
		b.WriteString(d)
	}
}

func (s *Scheduler) gname(id int32) string {
	if id < 0 {
		return "-"
	}
	return s.all[id].name
}

// detail renders the op-specific argument of a record.
func (s *Scheduler) detail(r *record) string {
	switch r.op {
	case opGo, opWake:
		return s.gname(int32(r.arg))
	case opTimeout:
		return "for " + s.gname(int32(r.arg))
	case opLockWait:
		return "held-by " + s.gname(int32(r.arg))
	case opUnlock:
		if r.arg >= 0 {
			return "to " + s.gname(int32(r.arg))
		}
	case opSleep, opEventBlock:
		if r.arg < 0 {
			return "forever"
		}
		return time.Duration(r.arg).String()
	case opRand:
		return strconv.FormatInt(r.arg&0xffffffff, 10) + " of " + strconv.FormatInt(r.arg>>32, 10)
	case opWait, opTryWait, opFired, opEventWait:
		return strconv.FormatBool(r.arg == 1)
	case opAdvance:
		return "clock"
	}
	return ""
}
