package lanes

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync/atomic"
	"testing"
)

// item is what a test's producer puts: its group and its place there.
type item struct{ group, n int }

// producer puts counts[k] items for group k, yielding between puts by an
// amount that depends on the item (so lanes finish in a scrambled order),
// and returns the number it put.
func producer(counts []int) func(ctx context.Context, k int, put func(item)) (int, error) {
	return func(ctx context.Context, k int, put func(item)) (int, error) {
		for n := range counts[k] {
			for range (k*31 + n*17) % 7 {
				runtime.Gosched()
			}
			put(item{k, n})
		}
		return counts[k], nil
	}
}

// runGrouped runs Grouped and returns what it handed on: the items, and each
// group's end as "k:started:result:err".
func runGrouped(ctx context.Context, groups, parallel, window int,
	produce func(ctx context.Context, k int, put func(item)) (int, error),
	onEmit func(item)) ([]item, []string, error) {
	var items []item
	var ends []string
	err := Grouped(ctx, groups, parallel, window, produce,
		func(it item) {
			items = append(items, it)
			if onEmit != nil {
				onEmit(it)
			}
		},
		func(k int, e Ended[int]) error {
			ends = append(ends, fmt.Sprintf("%d:%v:%d:%v", k, e.Started, e.Result, e.Err))
			return e.Err
		})
	return items, ends, err
}

// TestGroupedIsOneGroupAfterAnother: at any parallelism and window, the
// items come out group by group, each group's in the order it put them,
// and every group's end after its items: what running the producers one
// after another gives.
func TestGroupedIsOneGroupAfterAnother(t *testing.T) {
	counts := []int{40, 0, 300, 7, 1, 120}
	var want []item
	var wantEnds []string
	for k, c := range counts {
		for n := range c {
			want = append(want, item{k, n})
		}
		wantEnds = append(wantEnds, fmt.Sprintf("%d:true:%d:<nil>", k, c))
	}
	for _, c := range []struct{ parallel, window int }{{1, 1}, {2, 1}, {3, 5}, {6, 1000}, {10, 2}} {
		got, ends, err := runGrouped(context.Background(), len(counts), c.parallel, c.window, producer(counts), nil)
		if err != nil || !slices.Equal(got, want) || !slices.Equal(ends, wantEnds) {
			t.Fatalf("parallel %d, window %d: %v; items in order: %v; ends %v, want %v",
				c.parallel, c.window, err, slices.Equal(got, want), ends, wantEnds)
		}
	}
}

// TestGroupedWindowBoundsTheGroupsAhead: while the group being handed on
// makes nothing, a group ahead puts at most window items, then its lane
// waits; the group being handed on never waits.
func TestGroupedWindowBoundsTheGroupsAhead(t *testing.T) {
	const window = 3
	var putAhead atomic.Int64
	tryingMore := make(chan struct{})
	produce := func(ctx context.Context, k int, put func(item)) (int, error) {
		if k == 1 {
			for n := range 20 {
				if n == window {
					close(tryingMore)
				}
				put(item{k, n})
				putAhead.Add(1)
			}
			return 20, nil
		}
		<-tryingMore // group 1 has put its window and is putting one more
		for range 1000 {
			runtime.Gosched() // room for that put to return, were the window not enforced
		}
		if n := putAhead.Load(); n != window {
			return 0, fmt.Errorf("group 1 put %d items while group 0 was handed on; the window is %d", n, window)
		}
		for n := range 50 { // the head's lane: far past the window, no waiting
			put(item{k, n})
		}
		return 50, nil
	}
	got, ends, err := runGrouped(context.Background(), 2, 2, window, produce, nil)
	if err != nil || len(got) != 70 || !slices.Equal(ends, []string{"0:true:50:<nil>", "1:true:20:<nil>"}) {
		t.Fatalf("%d items, ends %v: %v", len(got), ends, err)
	}
}

// TestGroupedCancelHandsOnAPrefix: cancelled while the first group is
// handed on (a lane ahead waiting for the window, others producing), it
// returns once every producer has returned; what it handed on is, group by
// group, a prefix of what each group put; no lane takes another group, and
// the groups none took end with Started false.
func TestGroupedCancelHandsOnAPrefix(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var running, taken atomic.Int64
	produce := func(ctx context.Context, k int, put func(item)) (int, error) {
		running.Add(1)
		defer running.Add(-1)
		taken.Add(1)
		n := 0
		for ; n < 100000 && ctx.Err() == nil; n++ {
			put(item{k, n})
			if k == 0 && n == 9 {
				<-ctx.Done() // cancelled when item 9 is handed on
			}
		}
		return n, nil
	}
	got, ends, err := runGrouped(ctx, 8, 3, 4, produce, func(it item) {
		if it.group == 0 && it.n == 9 {
			cancel()
		}
	})
	if err != nil || running.Load() != 0 {
		t.Fatalf("%v; %d producers still running after Grouped returned", err, running.Load())
	}
	at := 0
	for k := range 8 {
		n := 0
		for at < len(got) && got[at].group == k {
			if got[at].n != n {
				t.Fatalf("group %d: item %d handed on as its %d-th", k, got[at].n, n)
			}
			at, n = at+1, n+1
		}
		want := fmt.Sprintf("%d:false:0:<nil>", k) // never taken
		if int64(k) < taken.Load() {
			want = fmt.Sprintf("%d:true:%d:<nil>", k, n) // every item it put handed on
		}
		if ends[k] != want {
			t.Fatalf("group %d: end %s, want %s", k, ends[k], want)
		}
	}
	if at != len(got) || len(got) < 10 || taken.Load() > 3 {
		t.Fatalf("%d items (%d in group order), %d groups taken: want at least 10, and no group taken past the 3 lanes' first", len(got), at, taken.Load())
	}
}

// TestGroupedErrorEndsWhereOneAfterAnotherWould: a producer's error, which
// ended returns, ends Grouped after the groups before it and its own items
// are handed on; no group after it is handed on.
func TestGroupedErrorEndsWhereOneAfterAnotherWould(t *testing.T) {
	bad := errors.New("unreadable")
	counts := []int{30, 20, 10, 40, 50}
	ok := producer(counts)
	produce := func(ctx context.Context, k int, put func(item)) (int, error) {
		n, err := ok(ctx, k, put)
		if k == 2 {
			err = bad
		}
		return n, err
	}
	got, ends, err := runGrouped(context.Background(), 5, 3, 2, produce, nil)
	want := []string{"0:true:30:<nil>", "1:true:20:<nil>", "2:true:10:unreadable"}
	if !errors.Is(err, bad) || len(got) != 60 || got[59] != (item{2, 9}) || !slices.Equal(ends, want) {
		t.Fatalf("%v: %d items, ends %v; want the first three groups' 60 and %v", err, len(got), ends, want)
	}
}

// TestGroupedErrorStopsTheLanes: a producer's error stops the lanes taking
// the groups after it even if ended lets the sweep go on: with one lane,
// the groups after the failed one end never started.
func TestGroupedErrorStopsTheLanes(t *testing.T) {
	counts := []int{3, 2, 1, 4, 5}
	ok := producer(counts)
	var ran []int
	produce := func(ctx context.Context, k int, put func(item)) (int, error) {
		ran = append(ran, k) // one lane: no race
		n, err := ok(ctx, k, put)
		if k == 2 {
			err = errors.New("unreadable")
		}
		return n, err
	}
	var ends []string
	err := Grouped(context.Background(), 5, 1, 8, produce, func(item) {}, func(k int, e Ended[int]) error {
		ends = append(ends, fmt.Sprintf("%d:%v:%d:%v", k, e.Started, e.Result, e.Err))
		return nil
	})
	want := []string{"0:true:3:<nil>", "1:true:2:<nil>", "2:true:1:unreadable", "3:false:0:<nil>", "4:false:0:<nil>"}
	if err != nil || !slices.Equal(ran, []int{0, 1, 2}) || !slices.Equal(ends, want) {
		t.Fatalf("%v: producers %v ran, ends %v; want 0 1 2 and %v", err, ran, ends, want)
	}
}
