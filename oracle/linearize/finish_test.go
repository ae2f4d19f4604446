package linearize

import (
	"reflect"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/model/ops"
)

// TestFinishTwiceJudgesTheSameHistory: Finish hands the recorder's buffer
// to the next run, yet a driver may judge a run again (realkubelet asks a
// second time with the model's deviations on): the second Finish must see
// the same history, not an empty one that passes.
func TestFinishTwiceJudgesTheSameHistory(t *testing.T) {
	o := New(Options{})
	for _, ev := range []history.Event{
		{Seq: 1, At: time.Second, Goroutine: "driver", Kind: history.ClientCall, ID: 1,
			Input: ops.Query{Kind: ops.IsPodKnownTerminated, UID: "a"}},
		// A forged answer: the workers never heard of a, so it is not known terminated.
		{Seq: 2, At: time.Second, Goroutine: "driver", Kind: history.ClientReturn, ID: 1, Output: ops.Answer(true)},
	} {
		o.Observe(nil, &ev)
	}
	first := o.Finish(nil, nil)
	if len(first) == 0 {
		t.Fatal("a forged query answer passed")
	}
	if again := o.Finish(nil, nil); !reflect.DeepEqual(again, first) {
		t.Fatalf("second Finish: %v, first: %v", again, first)
	}
}

// queryEvents is a query of an unknown pod a answering answer: legal for
// false (the workers never heard of a), forged for true; marked adds a
// critical section of a's worker (a worker-step marker in the witness).
func queryEvents(answer, marked bool) []history.Event {
	evs := []history.Event{
		{Seq: 1, At: time.Second, Goroutine: "driver", Kind: history.ClientCall, ID: 1,
			Input: ops.Query{Kind: ops.IsPodKnownTerminated, UID: "a"}},
		{Seq: 2, At: time.Second, Goroutine: "driver", Kind: history.LockAcquired},
		{Seq: 3, At: time.Second, Goroutine: "driver", Kind: history.LockReleasing},
		{Seq: 4, At: time.Second, Goroutine: "driver", Kind: history.ClientReturn, ID: 1, Output: ops.Answer(answer)},
	}
	if !marked {
		return evs
	}
	return append(evs, []history.Event{
		{Seq: 5, At: 2 * time.Second, Goroutine: "worker/a", Kind: history.LockAcquired},
		{Seq: 6, At: 2 * time.Second, Goroutine: "worker/a", Kind: history.LockReleasing},
	}...)
}

// TestWitnessPassIsTheFullVerdict: Finish decides a history whose witness
// replays legally without making the History (witnessPasses), and every
// other history as before. On a legal history, a forged one, and a legal
// one whose search (ForcePorcupine) disagrees with the replay, its findings
// are those of the full check of the recorded History; the legal one took
// the shortcut, the others did not (the forged answer and the disagreement
// are still caught).
func TestWitnessPassIsTheFullVerdict(t *testing.T) {
	illegal := func([]porcupine.Operation, time.Duration) (porcupine.CheckResult, porcupine.LinearizationInfo) {
		return porcupine.Illegal, porcupine.LinearizationInfo{}
	}
	for _, tc := range []struct {
		name     string
		answer   bool
		marked   bool
		opts     Options
		shortcut bool
		found    string // the invariant found, "" for none
	}{
		{"legal", false, false, Options{}, true, ""},
		{"legal, marked", false, true, Options{}, true, ""},
		{"forged", true, false, Options{}, false, "model"},
		{"forged, marked", true, true, Options{}, false, "model"},
		{"search disagrees", false, false, Options{ForcePorcupine: true, Search: illegal}, false, "internal"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o, full := newLinearizability(tc.opts), history.NewRecorder()
			for _, ev := range queryEvents(tc.answer, tc.marked) {
				o.Observe(nil, &ev)
				full.Observe(&ev)
			}
			got := o.Finish(nil, nil)
			h := full.History()
			want := checkHistory(h, nil, tc.opts, searchOf(tc.opts)).Violations(h)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("Finish: %v, the full check: %v", got, want)
			}
			if o.passed != tc.shortcut {
				t.Errorf("shortcut taken %v, want %v", o.passed, tc.shortcut)
			}
			if found := ""; len(got) > 0 {
				found = got[0].Invariant
				if found != tc.found {
					t.Errorf("found %q, want %q", found, tc.found)
				}
			} else if tc.found != "" {
				t.Errorf("found nothing, want %q", tc.found)
			}
			if again := o.Finish(nil, nil); !reflect.DeepEqual(again, got) {
				t.Errorf("second Finish: %v, first: %v", again, got)
			}
		})
	}
}
