// Package tape records a run on the real kubelet in the model's
// vocabulary: it numbers the driver's events, feeds them to the shared
// oracles as they happen, keeps them for re-checking a prefix, and keeps the
// canonical trace whose SHA-256 the determinism test compares.
package tape

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

// Tape numbers the run's events, in the model's vocabulary, feeds them to
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
type Tape struct {
	// Seq is the last event's number.
	Seq   int64
	calls int
	// Start is the run's start; Now the clock (the bubble's).
	Start time.Time
	Now   func() time.Time
	// On: events are recorded (off during teardown).
	On bool
	// Trace is the canonical trace, one line per event.
	Trace []string
	// Events are every event emitted, for re-checking a prefix.
	Events []history.Event
	// Oracles observe every event as it is emitted, with view.
	Oracles []oracle.Oracle
	view    oracle.View
}

// New starts a tape at now() whose oracles observe every event with view;
// its first event is the driver's LockAcquired.
func New(now func() time.Time, view oracle.View, oracles ...oracle.Oracle) *Tape {
	h := &Tape{Start: now(), Now: now, On: true, view: view, Oracles: oracles}
	h.Emit(history.LockAcquired, "driver", 0, nil, nil)
	return h
}

// Emit records an event of the model's vocabulary.
func (h *Tape) Emit(kind history.EventKind, goroutine string, id int, in model.Input, out model.Output) int64 {
	return h.emitEvent(history.Event{Goroutine: goroutine, Kind: kind, ID: id, Input: in, Output: out}, describe(in, out))
}

// Note records what a kubelet-level actor did.
func (h *Tape) Note(n history.Note) {
	h.emitEvent(history.Event{Goroutine: "kubelet", Kind: history.Noted, Note: n}, describeNote(n))
}

func (h *Tape) emitEvent(ev history.Event, text string) int64 {
	if !h.On {
		return 0
	}
	h.Seq++
	ev.Seq, ev.At = h.Seq, h.Now().Sub(h.Start)
	for _, o := range h.Oracles {
		o.Observe(h.view, ev)
	}
	h.Events = append(h.Events, ev)
	if ev.Kind != history.LockAcquired {
		h.Trace = append(h.Trace, fmt.Sprintf("%d %v %s %s %s", h.Seq, ev.At, ev.Kind, ev.Goroutine, text))
	}
	return h.Seq
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

// Call opens a client call by goroutine; Ret closes it.
func (h *Tape) Call(goroutine string, in model.Input) int {
	h.calls++
	h.Emit(history.ClientCall, goroutine, h.calls, in, nil)
	return h.calls
}

// Ret closes client call id of goroutine with its output.
func (h *Tape) Ret(goroutine string, id int, out model.Output) {
	h.Emit(history.ClientReturn, goroutine, id, nil, out)
}

// Point records an event without a call id (a fire, a callback point).
func (h *Tape) Point(kind history.EventKind, goroutine string, in model.Input) {
	h.Emit(kind, goroutine, 0, in, nil)
}

// SHA is the canonical trace's SHA-256.
func (h *Tape) SHA() string {
	sum := sha256.Sum256([]byte(strings.Join(h.Trace, "\n")))
	return hex.EncodeToString(sum[:])
}

// describeNote is a note's trace text: never a pointer or a function (a
// ShutdownKill carries one).
func describeNote(n history.Note) string {
	switch n := n.(type) {
	case history.ShutdownBegins:
		return fmt.Sprintf("ShutdownBegins%v", n.Active)
	case history.ShutdownKill:
		return fmt.Sprintf("ShutdownKill %s", n.UID)
	case history.SyncPodBegins:
		return fmt.Sprintf("SyncPodBegins %s", n.UID)
	case history.ShutdownDone:
		return "ShutdownDone"
	}
	return fmt.Sprintf("%T%+v", n, n)
}
