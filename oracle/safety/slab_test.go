package safety

import (
	"reflect"
	"slices"
	"testing"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/model/ops"
)

// TestCallsAreTheirOwn: the callbacks' records (newCall, a slab of
// history.SlabSize at a time) are each new, zero and left alone by the later
// ones, in one run and after Resets (a lane's next seed), which hand the
// run's arrays out again. It fails when reset leaves an array uncleared
// (a record handed out non-zero) or hands one out twice in a run.
func TestCallsAreTheirOwn(t *testing.T) {
	o := newSafetyOracle()
	var calls []*safetyCall
	for i := range 7 * history.SlabSize {
		if i == 2*history.SlabSize+3 || i == 4*history.SlabSize+5 {
			o.Reset()
			calls = nil // the run before's: free for the next
		}
		c := o.newCall()
		if *c != (safetyCall{}) {
			t.Fatalf("call %d handed out non-zero: %+v", i, *c)
		}
		c.seq, c.version = int64(len(calls)), len(calls)
		calls = append(calls, c)
		for j, d := range calls {
			if d.seq != int64(j) || d.version != j {
				t.Fatalf("call %d changed by call %d: %+v", j, i, *d)
			}
		}
	}
}

// TestSlabsKeptAcrossReset: after a Reset the termination requests'
// and callbacks' records come from the arrays of the run before, zero:
// a run of no more records than the one before allocates nothing for
// them. It fails when Reset drops the arrays.
func TestSlabsKeptAcrossReset(t *testing.T) {
	o := newSafetyOracle()
	run := func() {
		for i := range 3 * history.SlabSize {
			r := o.newRequest(safetyRequest{seq: int64(i + 1), cancel: true})
			if r.seq != int64(i+1) || !r.cancel || r.what != (safetyWhat{}) {
				t.Fatalf("request %d: %+v", i, *r)
			}
			if c := o.newCall(); *c != (safetyCall{}) {
				t.Fatalf("call %d handed out non-zero: %+v", i, *c)
			} else {
				c.seq = 9
			}
		}
		o.Reset()
	}
	run()
	if n := testing.AllocsPerRun(10, run); n != 0 {
		t.Fatalf("%v allocations per run after the first, want 0", n)
	}
}

// TestRecordsFreshAfterReset: the UID records and incarnations of the runs
// before a Reset (purged ones included) are reused, each as a new oracle
// would make it, and none is handed out twice.
func TestRecordsFreshAfterReset(t *testing.T) {
	o := newSafetyOracle()
	ev := history.Event{Seq: 3, At: 5}
	for _, uid := range []string{"a", "b"} {
		p := o.track(uid)
		o.begins(p, &ev)
		p.cur.calls, p.cur.versions = 4, append(p.cur.versions, safetyMark{seq: 1, v: 2})
		p.past = append(p.past, p.cur) // as purge leaves it
		o.begins(p, &ev)
		p.lastEnd, p.workerCS = 7, append(p.workerCS, 9)
	}
	o.Reset()
	if len(o.freePods) != 2 || len(o.freeIncs) != 4 {
		t.Fatalf("%d records and %d incarnations kept, want 2 and 4", len(o.freePods), len(o.freeIncs))
	}
	fresh := newSafetyOracle()
	seenPods, seenIncs := map[*safetyPod]bool{}, map[*safetyInc]bool{}
	ev2 := history.Event{Seq: 11, At: 13}
	for _, uid := range []string{"c", "d", "e"} {
		p, want := o.track(uid), fresh.track(uid)
		if !reflect.DeepEqual(p, want) || seenPods[p] {
			t.Fatalf("record of %s: %+v (handed out before: %v), want %+v", uid, *p, seenPods[p], *want)
		}
		seenPods[p] = true
		for range 2 {
			o.begins(p, &ev2)
			fresh.begins(want, &ev2)
			if !reflect.DeepEqual(p.cur, want.cur) || seenIncs[p.cur] {
				t.Fatalf("incarnation of %s: %+v (handed out before: %v), want %+v", uid, *p.cur, seenIncs[p.cur], *want.cur)
			}
			seenIncs[p.cur] = true
			p.cur.calls = 8
		}
	}
}

// TestTrackingKeptAcrossReset: after a Reset, a run that tracks no more
// UIDs and full names than the one before, purges each UID once, keeps a
// SyncKnownPods' list and delivers kill completions allocates nothing for
// them: the sorted lists (history.Arrays), the purged incarnations' list
// (firstPast) and the completions (a slab) reuse the run before's memory.
// The lists a run handed out stay as they were while later ones are made
// (copied on write). It fails when Reset drops that memory, or when a list
// is written after it was handed out.
func TestTrackingKeptAcrossReset(t *testing.T) {
	o := newSafetyOracle()
	ev := history.Event{Seq: 3, At: 5}
	cs := &safetyCS{ev: &ev}
	held := make([][]string, 0, 5)
	run := func() {
		held = held[:0]
		for i, uid := range []string{"d", "b", "e", "a", "c"} {
			held = append(held, o.uids)
			p := o.track(uid)
			o.begins(p, &ev)
			o.purge(p, &ev)
			o.noteFullName(&ops.Pod{Name: uid, Namespace: "default"})
			u := ops.UpdatePod{Pod: ops.Pod{UID: uid}, Kill: ops.KillOptions{CompletionID: i + 1}}
			o.deliver(&u, false, cs)
		}
		kept := o.strs.Make(len(o.uids))
		kept = append(kept, o.uids...)
		if !slices.Equal(kept, []string{"a", "b", "c", "d", "e"}) || len(o.sortedFullnames) != 5 {
			t.Fatalf("tracked %v, full names %v", kept, o.sortedFullnames)
		}
		for i, h := range held { // each as track left it: the first i UIDs, sorted
			if len(h) != i || !slices.IsSorted(h) {
				t.Fatalf("the list of %d UIDs was written later: %v", i, h)
			}
		}
		o.Reset()
	}
	run()
	// noteFullName's strings are new each run: only they allocate.
	if n := testing.AllocsPerRun(10, run); n > 5 {
		t.Fatalf("%v allocations per run after the first, want at most 5 (the full names)", n)
	}
}
