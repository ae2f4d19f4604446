package toolrun

import (
	"context"
	"sync"
)

// Each calls work(i) for each i in 0..n-1 that want accepts, parallel at
// a time (each work typically runs one tool binary), and note(i) under
// one lock as each ends; once ctx ends it starts no more.
func Each(ctx context.Context, parallel, n int, want func(int) bool, work, note func(int)) {
	var mu sync.Mutex
	next := make(chan int)
	var wg sync.WaitGroup
	for range parallel {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if ctx.Err() != nil {
					continue // sent before ctx ended: not started
				}
				work(i)
				mu.Lock()
				note(i)
				mu.Unlock()
			}
		}()
	}
	for i := range n {
		if ctx.Err() != nil {
			break
		}
		if want(i) {
			next <- i
		}
	}
	close(next)
	wg.Wait()
}
