package history

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/podsim/podsim/model/ops"
)

// script builds an event stream from short lines "goroutine kind [id]
// [what]": calls and points carry model inputs named by what.
func script(t *testing.T, lines ...string) []Event {
	t.Helper()
	inputs := map[string]ops.Input{
		"update":  ops.UpdatePod{Pod: ops.Pod{UID: "a", Version: 1}},
		"update2": ops.UpdatePod{Pod: ops.Pod{UID: "a", Version: 2}},
		"query":   ops.Query{Kind: ops.IsPodKnownTerminated, UID: "a"},
		"wait":    ops.KillPodNowDone{UID: "a", ID: 1},
		"fire":    ops.CompletionFired{UID: "a", ID: 1},
		"begin":   ops.SyncBegin{UID: "a", Fn: ops.SyncPod, Version: 1},
		"end":     ops.SyncEnd{UID: "a", Fn: ops.SyncPod},
		"readerr": ops.StatusReadFailed{UID: "a"},
	}
	kinds := map[string]EventKind{"call": ClientCall, "return": ClientReturn, "lock": LockAcquired,
		"unlock": LockReleasing, "begin": CallbackBegin, "end": CallbackEnd, "fired": Fired, "readfailed": ReadFailed}
	var out []Event
	for i, line := range lines {
		f := strings.Fields(line)
		ev := Event{Seq: int64(i + 1), At: time.Duration(i/3) * time.Second, Goroutine: f[0], Kind: kinds[f[1]]}
		for _, arg := range f[2:] {
			if in, ok := inputs[arg]; ok {
				ev.Input = in
			} else {
				fmt.Sscan(arg, &ev.ID)
			}
		}
		out = append(out, ev)
	}
	return out
}

// describeOps renders a history's intervals and its effect order.
func describeOps(h History) (calls, effects string) {
	var a, b []string
	for _, op := range h.Ops {
		a = append(a, fmt.Sprintf("%s[%d,%d]", shortName(op.Input.(ops.Input)), op.Call, op.Return))
	}
	for _, e := range h.Effects {
		b = append(b, fmt.Sprintf("%s@%d", shortName(h.Op(e).Input), e.Seq))
	}
	return strings.Join(a, " "), strings.Join(b, " ")
}

func shortName(in ops.Input) string {
	switch in := in.(type) {
	case ops.UpdatePod:
		return fmt.Sprintf("update%d", in.Pod.Version)
	case ops.Query:
		return "query"
	case ops.KillPodNowDone:
		return "wait"
	case ops.CompletionFired:
		return "fire"
	case ops.SyncBegin:
		return "begin"
	case ops.SyncEnd:
		return "end"
	case ops.StatusReadFailed:
		return "readerr"
	}
	return fmt.Sprintf("%T", in)
}

func TestRecorderContract(t *testing.T) {
	for _, tc := range []struct {
		name          string
		events        []string
		ops, effects  string
		cut           int64
		dropped, rows int
	}{{
		name: "a call takes effect at its critical section; a fire inside it is a point after it",
		events: []string{"client/0 call 1 update", "client/0 lock", "client/0 fired fire", "client/0 unlock",
			"client/0 return 1"},
		ops: "update1[2,10] fire[6,7]", effects: "update1@2 fire@3", rows: 2,
	}, {
		name: "overlapping calls take effect in lock order, not call order",
		events: []string{"client/0 call 1 update", "client/1 call 2 update2", "client/1 lock", "client/1 unlock",
			"client/0 lock", "client/0 unlock", "client/1 return 2", "client/0 return 1"},
		ops: "update1[2,16] update2[4,14]", effects: "update2@3 update1@5", rows: 2,
	}, {
		name: "killPodNow's wait starts inside the kill's critical section and takes effect at its return",
		events: []string{"client/0 call 1 update", "client/0 lock", "client/0 return 1", "client/0 call 2 wait",
			"client/0 unlock", "worker/a lock", "client/0 fired fire", "worker/a unlock", "client/0 return 2"},
		ops: "update1[2,6] wait[8,18] fire[14,15]", effects: "update1@2 fire@7 wait@9", rows: 2,
	}, {
		name:   "a call opened while its goroutine holds the lock takes effect at the call",
		events: []string{"client/0 lock", "client/0 call 1 query", "client/0 unlock", "client/0 return 1"},
		ops:    "query[4,8]", effects: "query@2", rows: 1,
	}, {
		name:   "a call that never takes the lock takes effect at its return",
		events: []string{"client/0 call 1 update", "client/0 return 1"},
		ops:    "update1[2,4]", effects: "update1@2", rows: 1,
	}, {
		name: "callbacks are points at entry and return",
		events: []string{"worker/a begin begin", "client/0 call 1 query", "client/0 lock", "client/0 unlock",
			"client/0 return 1", "worker/a end end"},
		ops: "begin[2,3] query[4,10] end[12,13]", effects: "begin@1 query@3 end@6", rows: 2,
	}, {
		name:   "a failed status read is a point in the worker's row",
		events: []string{"client/0 call 1 update", "client/0 lock", "client/0 unlock", "client/0 return 1", "worker/a readfailed readerr"},
		ops:    "update1[2,8] readerr[10,11]", effects: "update1@2 readerr@5", rows: 2,
	}, {
		name: "a call that took effect and never returned cuts the history before its effect",
		events: []string{"client/0 call 1 update", "client/0 lock", "client/0 unlock", "client/1 call 2 update2",
			"client/1 lock", "worker/a begin begin", "client/0 return 1"},
		ops: "update1[2,14]", effects: "update1@2", cut: 5, dropped: 2, rows: 3,
	}, {
		name:   "a call that never took effect is dropped alone",
		events: []string{"client/1 call 2 update2", "client/0 call 1 update", "client/0 lock", "client/0 return 1"},
		ops:    "update1[4,8]", effects: "update1@3", dropped: 1, rows: 2,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			r := NewRecorder()
			r.step = nil // markers: TestRecorderWitnessWorkerSteps
			for _, ev := range script(t, tc.events...) {
				r.Observe(&ev)
			}
			h := r.History()
			ops, effects := describeOps(h)
			if ops != tc.ops || effects != tc.effects {
				t.Errorf("got ops %q effects %q, want %q and %q", ops, effects, tc.ops, tc.effects)
			}
			if h.Cut != tc.cut || h.Dropped != tc.dropped || len(h.Rows) != tc.rows {
				t.Errorf("got cut %d dropped %d rows %v, want %d, %d, %d rows", h.Cut, h.Dropped, h.Rows, tc.cut, tc.dropped, tc.rows)
			}
		})
	}
}

func TestRecorderWitnessWorkerSteps(t *testing.T) {
	r := NewRecorder()
	for _, ev := range script(t, "worker/a lock", "worker/a unlock", "client/0 call 1 update", "client/0 lock",
		"client/0 return 1", "client/0 unlock") {
		r.Observe(&ev)
	}
	h := r.History()
	calls, effects := describeOps(h)
	if want := "update1[6,10]"; calls != want {
		t.Errorf("got ops %q, want %q: markers are not porcupine operations", calls, want)
	}
	if want := "ops.WorkerStep@1 update1@4"; effects != want {
		t.Errorf("got effects %q, want %q", effects, want)
	}
	if got := h.Effects[0].Step; got != (ops.WorkerStep{UID: "a"}) {
		t.Errorf("got marker %#v, want ops.WorkerStep{UID: \"a\"}", got)
	}
}

// TestOperationMetadataPrints: an operation's metadata (the porcupine
// visualisation's tooltip, printed with %v) reads as its row, events and
// effect, however it is stored.
func TestOperationMetadataPrints(t *testing.T) {
	r := NewRecorder()
	for _, ev := range script(t, "client/0 call 1 update", "client/0 lock", "client/0 return 1", "client/0 unlock",
		"client/1 call 2 update", "client/1 lock", "client/1 unlock", "client/1 return 2") {
		r.Observe(&ev)
	}
	h := r.History()
	if len(h.Ops) != 2 {
		t.Fatalf("got %d operations, want 2", len(h.Ops))
	}
	for i, want := range []string{"client/0 events 1–3, took effect at event 2", "client/1 events 5–8, took effect at event 6"} {
		if got := fmt.Sprintf("%v", h.Ops[i].Metadata); !strings.HasPrefix(got, want) {
			t.Errorf("operation %d: metadata prints %q, want it to begin %q", i, got, want)
		}
	}
}

// TestHistoryArraysReusedAfterReset: a History is built in the arrays of
// the one taken before the last Reset (a lane's next seed), never in
// those of one taken since (which a caller may still read), and reads as
// a fresh recorder's.
func TestHistoryArraysReusedAfterReset(t *testing.T) {
	run := func(r *Recorder, lines ...string) History {
		for _, ev := range script(t, lines...) {
			r.Observe(&ev)
		}
		return r.History()
	}
	first := []string{"client/0 call 1 update", "client/0 lock", "client/0 return 1", "client/0 unlock",
		"client/1 call 2 update2", "client/1 lock", "client/1 unlock", "client/1 return 2"}
	second := []string{"client/0 call 1 update2", "client/0 lock", "client/0 unlock", "client/0 return 1"}
	r := NewRecorder()
	h1 := run(r, first...)
	again := r.History()
	if &again.Ops[0] == &h1.Ops[0] || &again.Effects[0] == &h1.Effects[0] {
		t.Fatal("a second History without a Reset shares the first's arrays")
	}
	r.Reset()
	h2 := run(r, second...)
	if &h2.Ops[0] != &again.Ops[0] || &h2.Effects[0] != &again.Effects[0] {
		t.Error("after a Reset the next History does not reuse the last one's arrays")
	}
	fresh := run(NewRecorder(), second...)
	gotCalls, gotEffects := describeOps(h2)
	wantCalls, wantEffects := describeOps(fresh)
	if gotCalls != wantCalls || gotEffects != wantEffects || fmt.Sprint(h2.Ops[0].Metadata) != fmt.Sprint(fresh.Ops[0].Metadata) {
		t.Errorf("reused: %s / %s (%v), fresh: %s / %s (%v)", gotCalls, gotEffects, h2.Ops[0].Metadata,
			wantCalls, wantEffects, fresh.Ops[0].Metadata)
	}
}

// TestRecycledBuffersAreNotShared: a recorder recycled twice (a lane's
// linearizability oracle recycles at Finish and again at its Reset) puts
// its buffer back once, so two recorders made after never share one.
func TestRecycledBuffersAreNotShared(t *testing.T) {
	r := NewRecorder()
	r.ops = append(r.ops, recOp{row: 1})
	r.Recycle()
	r.Recycle()
	a, b := NewRecorder(), NewRecorder()
	a.ops, b.ops = append(a.ops, recOp{row: 2}), append(b.ops, recOp{row: 3})
	if a.ops[0].row != 2 || b.ops[0].row != 3 {
		t.Errorf("two recorders share an operation buffer: rows %d and %d, want 2 and 3", a.ops[0].row, b.ops[0].row)
	}
}

// TestRowsAndClockKeptUnlessShared: a run judged without its History (a
// passing one) leaves Reset the arrays of Rows and Clock to reuse; a run
// whose History was taken does not, so that History's Rows and Clock stay
// as they were while the next run records, and its next History equals a
// fresh recorder's. It fails when Reset reuses arrays a History shares
// (the earlier Rows or Clock change) or drops the unshared ones.
func TestRowsAndClockKeptUnlessShared(t *testing.T) {
	first := []string{"client/0 call 1 update", "client/0 lock", "client/0 return 1", "client/0 unlock",
		"client/1 call 2 update2", "client/1 lock", "client/1 unlock", "client/1 return 2"}
	second := []string{"client/2 call 1 update2", "client/2 lock", "client/2 unlock", "client/2 return 1",
		"client/3 call 2 query", "client/3 lock", "client/3 unlock", "client/3 return 2"}
	observe := func(r *Recorder, lines []string) {
		for _, ev := range script(t, lines...) {
			r.Observe(&ev)
		}
	}
	r := NewRecorder()
	observe(r, first)
	clock := &r.clock[:1][0]
	r.Reset() // no History taken: the clock's array is kept
	if len(r.clock) != 0 || len(r.rowNames) != 0 || &r.clock[:1][0] != clock {
		t.Fatalf("after a Reset without a History: clock %v (kept: %v), rows %v, want the array kept, empty",
			r.clock, &r.clock[:1][0] == clock, r.rowNames)
	}
	observe(r, first)
	h := r.History()
	rows, clocks := fmt.Sprint(h.Rows), fmt.Sprint(h.Clock)
	r.Reset()
	observe(r, second)
	if fmt.Sprint(h.Rows) != rows || fmt.Sprint(h.Clock) != clocks {
		t.Fatalf("an earlier History's rows and clock changed: %v %v, were %s %s", h.Rows, h.Clock, rows, clocks)
	}
	fresh := NewRecorder()
	observe(fresh, second)
	got, want := r.History(), fresh.History()
	if fmt.Sprint(got.Rows, got.Clock) != fmt.Sprint(want.Rows, want.Clock) {
		t.Errorf("after Resets: rows and clock %v %v, a fresh recorder's %v %v", got.Rows, got.Clock, want.Rows, want.Clock)
	}
}

// TestRecycledBufferIsCleared: Recycle clears only the operations recorded
// (a buffer is handed out cleared and only appended to), so a buffer that
// held a long history and then a short one is still clear to its capacity
// when it goes back: nothing of either history stays reachable. It fails
// when Recycle leaves a recorded operation behind.
func TestRecycledBufferIsCleared(t *testing.T) {
	long := []string{"client/0 call 1 update", "client/0 lock", "client/0 return 1", "client/0 unlock"}
	for range 40 {
		long = append(long, "worker/a lock", "worker/a unlock", "worker/a begin begin", "worker/a end end")
	}
	short := []string{"client/1 call 1 update2", "client/1 lock", "client/1 unlock", "client/1 return 1"}
	r := NewRecorder()
	var buf []recOp
	for _, lines := range [][]string{long, short, short} {
		for _, ev := range script(t, lines...) {
			r.Observe(&ev)
		}
		if buf != nil && &r.ops[0] != &buf[0] {
			t.Fatal("the recorder did not record into the buffer it was handed")
		}
		buf = r.ops[:cap(r.ops)]
		r.Recycle()
		for i := range buf {
			if buf[i] != (recOp{}) {
				t.Fatalf("recycled buffer: operation %d of %d not cleared: %+v", i, len(buf), buf[i])
			}
		}
		// The next run records into the same buffer (the pool may drop it).
		r.Reset()
		r.Recycle()
		r.ops, r.opsBox = buf[:0], nil
	}
}

// TestWitnessWorkerStepLetters: the marker's input of a one-letter UID is
// boxed once (letterSteps) and is that UID's; any other UID's is made as
// before. It fails when a letter's input is another letter's, or when a
// letter's allocates.
func TestWitnessWorkerStepLetters(t *testing.T) {
	for _, uid := range []string{"a", "b", "m", "z", "A", "ab", "", "{", "`", "pod-a"} {
		if got := witnessWorkerStep(uid); got != (ops.WorkerStep{UID: uid}) {
			t.Errorf("witnessWorkerStep(%q) = %#v", uid, got)
		}
	}
	if n := testing.AllocsPerRun(10, func() { witnessWorkerStep("q") }); n != 0 {
		t.Errorf("a one-letter UID's input allocates %v times, want 0", n)
	}
}
