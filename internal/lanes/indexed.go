package lanes

import (
	"context"
	"sync"
)

// Indexed runs work(0), …, work(n-1) on parallel goroutines until they are
// done or ctx is cancelled (the jobs in flight then finish), and hands each
// result to emit in index order, whatever the parallelism. A job is handed
// out only while fewer than window jobs are out of order, so at most window
// results wait in the reorder buffer. It returns the number of results
// emitted (n unless ctx was cancelled): those of jobs 0..m-1, no gap.
// parallel and window must be at least 1.
func Indexed[T any](ctx context.Context, n uint64, parallel, window int, work func(i uint64) T, emit func(T)) uint64 {
	return IndexedOn(ctx, n, parallel, window, func(_ int, i uint64) T { return work(i) }, emit)
}

// IndexedOn is Indexed whose work is also told which of the parallel
// goroutines (0 to parallel-1) runs it: what a goroutine keeps from job to
// job (simrun: a lane's reused structures, run.Lane) is indexed by it, so
// no two goroutines share it.
func IndexedOn[T any](ctx context.Context, n uint64, parallel, window int, work func(lane int, i uint64) T, emit func(T)) uint64 {
	type result struct {
		i uint64
		v T
	}
	tokens := make(chan struct{}, window)
	next := make(chan uint64)
	done := make(chan result, parallel)
	var wg sync.WaitGroup
	for w := 0; w < parallel; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				done <- result{i, work(w, i)}
			}
		}()
	}
	go func() {
		defer close(next)
		for i := uint64(0); i < n; i++ {
			select {
			case tokens <- struct{}{}:
			case <-ctx.Done():
				return
			}
			select {
			case next <- i:
			case <-ctx.Done():
				return
			}
		}
	}()
	go func() { wg.Wait(); close(done) }()
	pending := map[uint64]T{} // looked up by index, never ranged over
	var emitted uint64
	for r := range done {
		pending[r.i] = r.v
		for {
			v, ok := pending[emitted]
			if !ok {
				break
			}
			delete(pending, emitted)
			emit(v)
			emitted++
			<-tokens
		}
	}
	return emitted
}
