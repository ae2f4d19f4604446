package lanes

import (
	"context"
	"runtime"
	"slices"
	"sync/atomic"
	"testing"
	"time"
)

// TestIndexedOrderAndBound: results come out in index order whatever order
// the workers finish in, and while job 0 is held up no more than the
// window of later jobs is started (the reorder buffer is bounded).
func TestIndexedOrderAndBound(t *testing.T) {
	const window = 64
	var started, emitted atomic.Int64
	var maxAhead atomic.Int64
	release := make(chan struct{})
	work := func(i uint64) uint64 {
		n := started.Add(1)
		for ahead := n - emitted.Load(); ; {
			if m := maxAhead.Load(); ahead <= m || maxAhead.CompareAndSwap(m, ahead) {
				break
			}
		}
		if i == 0 {
			<-release // job 0 finishes last of its window
		}
		return 3*i + 1
	}
	go func() {
		for started.Load() < window {
			time.Sleep(time.Millisecond)
		}
		time.Sleep(20 * time.Millisecond) // room for a job past the window to start, were it handed out
		close(release)
	}()
	var got []uint64
	n := Indexed(context.Background(), 2000, 4, window, work, func(v uint64) {
		emitted.Add(1)
		got = append(got, v)
	})
	if n != 2000 || len(got) != 2000 {
		t.Fatalf("emitted %d (%d), want 2000", n, len(got))
	}
	for i, v := range got {
		if v != 3*uint64(i)+1 {
			t.Fatalf("result %d is %d, want %d", i, v, 3*i+1)
		}
	}
	if maxAhead.Load() > window+1 {
		t.Fatalf("%d jobs started ahead of the first unemitted one; the window is %d", maxAhead.Load(), window)
	}
}

// TestIndexedCancelEmitsAPrefix: after cancellation the jobs in flight
// finish and what is emitted is jobs 0..n-1, no gap.
func TestIndexedCancelEmitsAPrefix(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var next uint64
	n := Indexed(ctx, 100000, 3, 64, func(i uint64) uint64 {
		if i == 500 {
			cancel()
		}
		return i
	}, func(i uint64) {
		if i != next {
			t.Fatalf("emitted job %d, want %d", i, next)
		}
		next++
	})
	if n != next || n < 501 || n >= 100000 {
		t.Fatalf("emitted %d (%d): want the first 501 or more, not all", n, next)
	}
}

// TestIndexedSameAtAnyParallelism: with jobs that finish in a scrambled
// order (each yields a number of times that depends on its index), what
// is emitted is the same at every parallelism and window, and is the
// sequential result.
func TestIndexedSameAtAnyParallelism(t *testing.T) {
	work := func(i uint64) string {
		for range (i * 7919) % 13 {
			runtime.Gosched()
		}
		return string(rune('a' + i%26))
	}
	var want []string
	for i := range uint64(3000) {
		want = append(want, work(i))
	}
	for _, c := range []struct{ parallel, window int }{{1, 1}, {2, 1}, {3, 4}, {8, 64}, {16, 256}} {
		var got []string
		n := Indexed(context.Background(), 3000, c.parallel, c.window, work, func(s string) { got = append(got, s) })
		if n != 3000 || !slices.Equal(got, want) {
			t.Fatalf("parallel %d, window %d: %d emitted, equal to the sequential results: %v",
				c.parallel, c.window, n, slices.Equal(got, want))
		}
	}
}

// TestIndexedOnLanesAreNotShared: each job is told a lane in [0, parallel)
// that no other job uses while it runs, so state kept per lane is never
// shared; results still come out in index order.
func TestIndexedOnLanesAreNotShared(t *testing.T) {
	const parallel = 4
	var busy [parallel]atomic.Bool
	var shared, outside atomic.Int64
	work := func(lane int, i uint64) uint64 {
		if lane < 0 || lane >= parallel {
			outside.Add(1)
			return i
		}
		if !busy[lane].CompareAndSwap(false, true) {
			shared.Add(1)
		}
		runtime.Gosched()
		busy[lane].Store(false)
		return i
	}
	var got []uint64
	n := IndexedOn(context.Background(), 1000, parallel, 64, work, func(v uint64) { got = append(got, v) })
	if n != 1000 || outside.Load() != 0 || shared.Load() != 0 {
		t.Fatalf("emitted %d, %d jobs outside [0, %d), %d on a lane in use", n, outside.Load(), parallel, shared.Load())
	}
	for i, v := range got {
		if v != uint64(i) {
			t.Fatalf("result %d is %d", i, v)
		}
	}
}
