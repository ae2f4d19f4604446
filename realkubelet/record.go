package realkubelet

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/model"
	"github.com/podsim/podsim/oracle"
)

// tape numbers the run's events, in the model's vocabulary, feeds them to
// the shared oracles as they happen (the linearizability oracle records
// them in the same history.Recorder the simulated world uses), keeps them
// for re-checking a prefix, and keeps a canonical trace (one line per
// event, virtual time and description, never pointers or goroutine ids)
// whose SHA-256 the determinism test compares.
//
// Recording contract as history.Recorder wants it: the driver holds the
// pod lock once and for all (one LockAcquired by "driver" at the start), so
// each client call takes effect at its call, which is exact here: the
// driver's calls are synchronous and nothing else runs during them. No
// worker-step markers are recorded (the driver cannot see the workers'
// critical sections), so the model replays in closure mode. Fires are
// polled after every step and recorded inside the call that caused them
// (before its return) or, after a release, before the next callback
// begins — the only orders the real code allows, since a worker fires in
// the critical section right after a callback returns.
type tape struct {
	seq   int64
	calls int
	start time.Time
	now   func() time.Time
	on    bool
	trace []string
	// events are every event emitted, for re-checking a prefix.
	events []history.Event
	// oracles observe every event as it is emitted, with view.
	oracles []oracle.Oracle
	view    oracle.View
}

func newTape(now func() time.Time, view oracle.View, oracles ...oracle.Oracle) *tape {
	h := &tape{start: now(), now: now, on: true, view: view, oracles: oracles}
	h.emit(history.LockAcquired, "driver", 0, nil, nil)
	return h
}

func (h *tape) emit(kind history.EventKind, goroutine string, id int, in model.Input, out model.Output) int64 {
	return h.emitEvent(history.Event{Goroutine: goroutine, Kind: kind, ID: id, Input: in, Output: out}, describe(in, out))
}

// note records what a kubelet-level actor did (status.go).
func (h *tape) note(n history.Note) {
	h.emitEvent(history.Event{Goroutine: "kubelet", Kind: history.Noted, Note: n}, describeNote(n))
}

func (h *tape) emitEvent(ev history.Event, text string) int64 {
	if !h.on {
		return 0
	}
	h.seq++
	ev.Seq, ev.At = h.seq, h.now().Sub(h.start)
	for _, o := range h.oracles {
		o.Observe(h.view, ev)
	}
	h.events = append(h.events, ev)
	if ev.Kind != history.LockAcquired {
		h.trace = append(h.trace, fmt.Sprintf("%d %v %s %s %s", h.seq, ev.At, ev.Kind, ev.Goroutine, text))
	}
	return h.seq
}

func describe(in model.Input, out model.Output) string {
	if in == nil {
		if out == nil {
			return "-"
		}
		return fmt.Sprint(out)
	}
	return model.Describe(in, out)
}

// call opens a client call by goroutine; ret closes it.
func (h *tape) call(goroutine string, in model.Input) int {
	h.calls++
	h.emit(history.ClientCall, goroutine, h.calls, in, nil)
	return h.calls
}

func (h *tape) ret(goroutine string, id int, out model.Output) {
	h.emit(history.ClientReturn, goroutine, id, nil, out)
}

func (h *tape) point(kind history.EventKind, goroutine string, in model.Input) {
	h.emit(kind, goroutine, 0, in, nil)
}

// sha is the canonical trace's SHA-256.
func (h *tape) sha() string {
	sum := sha256.Sum256([]byte(strings.Join(h.trace, "\n")))
	return hex.EncodeToString(sum[:])
}
