// Package tape records a run on the real kubelet in the model's
// vocabulary: it numbers the driver's events, feeds them to the shared
// oracles as they happen, keeps them for re-checking a prefix, and keeps the
// canonical trace whose SHA-256 the determinism test compares.
package tape

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/model/ops"
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
func (h *Tape) Emit(kind history.EventKind, goroutine string, id int, in ops.Input, out ops.Output) int64 {
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
	ev.Seq, ev.At = h.Seq, h.Elapsed()
	for _, o := range h.Oracles {
		o.Observe(h.view, &ev)
	}
	h.Events = append(h.Events, ev)
	if ev.Kind != history.LockAcquired {
		h.Trace = append(h.Trace, fmt.Sprintf("%d %v %s %s %s", h.Seq, ev.At, ev.Kind, ev.Goroutine, text))
	}
	return h.Seq
}

func describe(in ops.Input, out ops.Output) string {
	if in == nil {
		if out == nil {
			return "-"
		}
		return fmt.Sprint(out)
	}
	return ops.Describe(in, out)
}

// Elapsed is the run's time so far: what an event recorded now is stamped
// with.
func (h *Tape) Elapsed() time.Duration { return h.Now().Sub(h.Start) }

// Call opens a client call by goroutine; Ret closes it.
func (h *Tape) Call(goroutine string, in ops.Input) int {
	h.calls++
	h.Emit(history.ClientCall, goroutine, h.calls, in, nil)
	return h.calls
}

// Ret closes client call id of goroutine with its output.
func (h *Tape) Ret(goroutine string, id int, out ops.Output) {
	h.Emit(history.ClientReturn, goroutine, id, nil, out)
}

// Point records an event without a call id (a fire, a callback point).
func (h *Tape) Point(kind history.EventKind, goroutine string, in ops.Input) {
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
	case history.ShutdownCancelled:
		return "ShutdownCancelled"
	case history.LogindRestarted:
		return fmt.Sprintf("LogindRestarted watching connection %d", n.Watching)
	}
	return fmt.Sprintf("%T%+v", n, n)
}

// Processes are the histories of the run's kubelet processes, recorded
// afresh from the events, one per process (a process starts at the seq in
// starts, after the previous one's Restarted event), oldest first.
func (h *Tape) Processes(starts []int64) []history.History {
	var out []history.History
	for i, from := range starts {
		to := h.Seq + 1
		if i+1 < len(starts) {
			to = starts[i+1] - 1 // before the Restarted event
		}
		out = append(out, h.Range(from, to))
	}
	return out
}

// Without records the events with from ≤ seq < to afresh without any
// operation of the UIDs in gone, without their entries in every
// SyncKnownPods, and without every IsPodForMirrorPodTerminatingByFullName
// of a full name a gone UID had as a static pod: the real answer is about
// the UID that started under that name, which may be a gone one.
func (h *Tape) Without(from, to int64, gone map[string]bool) history.History {
	rec := history.NewRecorder()
	dropped := map[string]bool{} // "goroutine/id" of calls left out
	names := h.staticNames(from, to, gone)
	for _, ev := range h.Events {
		if ev.Seq >= to {
			break
		}
		if ev.Seq < from {
			continue
		}
		key := fmt.Sprintf("%s/%d", ev.Goroutine, ev.ID)
		if ev.Kind == history.ClientReturn && dropped[key] {
			continue
		}
		if gone[ops.UIDOf(ev.Input)] || names[mirrorQueryName(ev.Input)] {
			if ev.Kind == history.ClientCall {
				dropped[key] = true
			}
			continue
		}
		if in, ok := ev.Input.(ops.SyncKnownPods); ok {
			ev.Input = ops.SyncKnownPods{Desired: slices.DeleteFunc(slices.Clone(in.Desired), func(uid string) bool { return gone[uid] })}
		}
		if known, ok := ev.Output.(ops.KnownPods); ok {
			ev.Output = slices.DeleteFunc(slices.Clone(known), func(k ops.KnownPod) bool { return gone[k.UID] })
		}
		rec.Observe(&ev)
	}
	return rec.History()
}

// staticNames are the full names the UIDs in gone had as static pods in
// the UpdatePod calls with from ≤ seq < to.
func (h *Tape) staticNames(from, to int64, gone map[string]bool) map[string]bool {
	names := map[string]bool{}
	for _, ev := range h.Events {
		if ev.Seq >= to {
			break
		}
		if u, ok := ev.Input.(ops.UpdatePod); ok && ev.Seq >= from && u.Pod.Static && gone[u.Pod.UID] {
			names[u.Pod.FullName()] = true
		}
	}
	return names
}

// mirrorQueryName is the full name an IsPodForMirrorPodTerminatingByFullName
// asks about; "" for any other input.
func mirrorQueryName(in ops.Input) string {
	if q, ok := in.(ops.Query); ok && q.Kind == ops.IsPodForMirrorPodTerminatingByFullName {
		return q.FullName
	}
	return ""
}

// Range records the events with from ≤ seq < to afresh.
func (h *Tape) Range(from, to int64) history.History {
	rec := history.NewRecorder()
	for _, ev := range h.Events {
		if ev.Seq >= to {
			break
		}
		if ev.Seq >= from {
			rec.Observe(&ev)
		}
	}
	return rec.History()
}

// PerProcess is an oracle per kubelet process: at Restarted the current
// one is set aside and a fresh one (made by start) judges the new pod
// workers (run/run.go's epochOracles does the same for the world). A
// set-aside one is finished with oracle.ErrEpochEnded: its history stops
// where the process did (calls in flight are cut).
type PerProcess struct {
	start func() oracle.Oracle
	cur   oracle.Oracle
	past  []oracle.Oracle
}

// NewPerProcess is the per-process oracle of start's oracles.
func NewPerProcess(start func() oracle.Oracle) *PerProcess {
	return &PerProcess{start: start, cur: start()}
}

// Observe implements oracle.Oracle.
func (p *PerProcess) Observe(v oracle.View, ev *history.Event) {
	if ev.Kind == history.Restarted {
		p.past, p.cur = append(p.past, p.cur), p.start()
		return
	}
	p.cur.Observe(v, ev)
}

// Finish implements oracle.Oracle: the set-aside processes' violations,
// oldest first, then the current one's.
func (p *PerProcess) Finish(v oracle.View, runErr error) []history.Violation {
	var out []history.Violation
	for _, o := range p.past {
		out = append(out, o.Finish(v, oracle.ErrEpochEnded)...)
	}
	return append(out, p.cur.Finish(v, runErr)...)
}
