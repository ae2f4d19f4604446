package linearize

import (
	"reflect"
	"testing"
	"time"

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
