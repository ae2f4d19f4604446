package boxes

import (
	"fmt"
	"reflect"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/model/ops"
)

// holds asks box for each of vals three times over, in turn, and fails
// unless each box is want's for the value: the value asked for, of its
// type. vals are many more than a cache's slots, and some differ only in
// fields its hash leaves out: a slot that answered for its hash alone
// would hand out another value's box.
func holds[T any, I comparable](t *testing.T, name string, vals []T, want, box func(T) I) {
	t.Helper()
	if len(vals) <= 1<<bits {
		t.Fatalf("%s: %d values, not more than the %d slots", name, len(vals), 1<<bits)
	}
	for round := range 3 {
		for _, v := range vals {
			if got, want := box(v), want(v); got != want {
				t.Fatalf("%s, round %d: got %#v, want %#v", name, round, got, want)
			}
		}
	}
}

// values are n values of T, the i-th f(i).
func values[T any](n int, f func(i int) T) []T {
	out := make([]T, n)
	for i := range out {
		out[i] = f(i)
	}
	return out
}

var uids = []string{"a", "b", "c", "ab", "abc"}

// TestBoxesHoldTheirValues: every box a Cache hands out, kept or nil,
// holds the value asked for, of its type, also when slots are taken over
// by other values and when values differ only in fields the hash skips.
func TestBoxesHoldTheirValues(t *testing.T) {
	updates := values(1500, func(i int) ops.UpdatePod {
		return ops.UpdatePod{Type: ops.UpdateType(i % 4), Pod: ops.Pod{UID: uids[i%5], Name: fmt.Sprint("pod", i%7),
			Namespace: "default", Static: i%11 == 0, Version: i % 13, DeletionTimestamp: i%3 == 0, HasDeletionGrace: i%17 == 0},
			Kill: ops.KillOptions{HasGraceOverride: i%19 == 0, CompletionID: i % 6}}
	})
	begins := values(1500, func(i int) ops.SyncBegin {
		return ops.SyncBegin{UID: uids[i%5], Fn: ops.SyncFn(i % 4), Type: ops.UpdateType(i % 3), Version: i % 29, Grace: int64(i % 7)}
	})
	ends := values(1500, func(i int) ops.SyncEnd {
		return ops.SyncEnd{UID: uids[i%5], Fn: ops.SyncFn(i % 4), Outcome: ops.Outcome(i % 3), IsTerminal: i%7 == 0,
			Err: ops.ErrShape{NetworkNotReady: i%11 == 0, Backoff: i%13 == 0, BackoffExpiry: time.Duration(i % 17)}}
	})
	type fired struct {
		uid string
		id  int
	}
	fires := values(1500, func(i int) fired { return fired{uids[i%5], i%300 - 150} })
	type timed struct {
		uid types.UID
		d   time.Duration
	}
	timings := values(1500, func(i int) timed { return timed{types.UID(uids[i%5]), time.Duration(i%400 - 1)} })
	type worker struct {
		name    string
		uid     types.UID
		kubelet int
		ended   bool
	}
	workers := values(1500, func(i int) worker {
		return worker{fmt.Sprint("worker/", uids[i%5], "#", i%50), types.UID(uids[(i/5)%5]), i % 3, i%2 == 0}
	})
	drains := values(1500, func(i int) history.WorkerDrainEnded {
		v := history.WorkerDrainEnded{Bound: time.Duration(i % 7), Waited: time.Duration(i % 300)}
		if i%5 == 0 {
			v.Stuck = []history.StuckWorker{{Goroutine: fmt.Sprint("worker/a#", i)}}
		}
		return v
	})
	for _, c := range []*Cache{nil, new(Cache)} {
		holds(t, "Update", updates, func(v ops.UpdatePod) ops.Input { return v }, c.Update)
		holds(t, "Begin", begins, func(v ops.SyncBegin) ops.Input { return v }, c.Begin)
		holds(t, "End", ends, func(v ops.SyncEnd) ops.Input { return v }, c.End)
		holds(t, "Fired", fires, func(f fired) ops.Input {
			if f.id < 0 {
				return ops.CancelFired{UID: f.uid}
			}
			return ops.CompletionFired{UID: f.uid, ID: f.id}
		}, func(f fired) ops.Input { return c.Fired(f.uid, f.id) })
		holds(t, "StatusRead", timings, func(v timed) history.Note { return history.StatusRead{UID: v.uid, NewerThan: v.d} },
			func(v timed) history.Note { return c.StatusRead(v.uid, v.d) })
		holds(t, "Requeued", timings, func(v timed) history.Note { return history.Requeued{UID: v.uid, Delay: v.d} },
			func(v timed) history.Note { return c.Requeued(v.uid, v.d) })
		holds(t, "Worker", workers, func(v worker) history.Note {
			if v.ended {
				return history.WorkerEnded{Goroutine: v.name, UID: v.uid, Kubelet: v.kubelet}
			}
			return history.WorkerStarted{Goroutine: v.name, UID: v.uid, Kubelet: v.kubelet}
		}, func(v worker) history.Note { return c.Worker(v.name, v.uid, v.kubelet, v.ended) })
		for round := range 2 {
			for _, v := range drains {
				if got := c.DrainEnded(v); !reflect.DeepEqual(got, history.Note(v)) {
					t.Fatalf("DrainEnded, round %d: got %#v, want %#v", round, got, v)
				}
			}
		}
	}
}

// TestBoxesAreKept: a kept Cache boxes a value asked for again in no
// allocation; a nil one allocates each time (what the world does without
// a lane).
func TestBoxesAreKept(t *testing.T) {
	u := ops.UpdatePod{Pod: ops.Pod{UID: "a", Name: "a", Namespace: "default", Version: 3}}
	b := ops.SyncBegin{UID: "a", Fn: 1, Version: 3}
	e := ops.SyncEnd{UID: "a", Fn: 1, Outcome: ops.Failed}
	ask := func(c *Cache) {
		c.Update(u)
		c.Begin(b)
		c.End(e)
		c.Fired("a", 2)
		c.Fired("a", -1)
		c.StatusRead("a", time.Second)
		c.Requeued("a", time.Second)
		c.Worker("worker/a", "a", 0, false)
		c.Worker("worker/a", "a", 0, true)
		c.DrainEnded(history.WorkerDrainEnded{Bound: time.Second})
	}
	c := new(Cache)
	if n := testing.AllocsPerRun(10, func() { ask(c) }); n != 0 {
		t.Errorf("a kept cache: %v allocations for values it boxed before, want 0", n)
	}
	if n := testing.AllocsPerRun(10, func() { ask(nil) }); n != 10 {
		t.Errorf("a nil cache: %v allocations, want 10 (one a value)", n)
	}
	if c.Kept() != c || (*Cache)(nil).Kept() == nil {
		t.Error("Kept: a cache is not kept, or a nil one is not made")
	}
}
