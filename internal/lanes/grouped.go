package lanes

import (
	"context"
	"sync"
)

// Grouped runs several groups' producers side by side: each producer is
// independent of the others, so what it puts is the same whichever
// producers run beside it. Lanes (parallel of them) take the groups in
// order, each lane one group after another. The items are handed on as
// running the producers one after another would: group by group, each
// group's in the order it put them. Those of a group ahead of the one
// being handed on wait, at most window of them in all (then its lane
// waits in put), so memory stays bounded whatever the groups make. Once a
// group's items are handed on, ended learns how its producer ended.
//
// A producer's error stops the lanes taking the groups after it (the
// sweep ends there, as one group after another would); ended returning an
// error ends Grouped with it. When ctx is cancelled no lane takes another
// group, a put no longer waits for the window, and the groups no lane
// took end with Started false. Grouped returns once every lane has ended.
func Grouped[T, R any](ctx context.Context, groups, parallel, window int,
	produce func(ctx context.Context, k int, put func(T)) (R, error),
	emit func(T), ended func(k int, e Ended[R]) error) error {
	ctx, stop := context.WithCancel(ctx)
	g := &grouped[T, R]{ctx: ctx, groups: make([]group[T, R], groups), stopAt: groups, window: window}
	g.cond = sync.NewCond(&g.mu)
	unwatch := context.AfterFunc(ctx, g.wake)
	var wg sync.WaitGroup
	for range min(max(1, parallel), groups) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			g.lane(produce)
		}()
	}
	defer func() { stop(); wg.Wait(); unwatch() }()
	for k := range groups {
		if err := ended(k, g.handOn(k, emit)); err != nil {
			return err
		}
	}
	return nil
}

// Ended is how a group's producer ended, as Grouped hands it on.
type Ended[R any] struct {
	Started bool // a lane took the group (else the sweep stopped first)
	Result  R    // what the producer returned
	Err     error
}

// group is one group's part of a Grouped sweep: what its lane has put and
// not yet handed on, and how its producer ended.
type group[T, R any] struct {
	items []T  // put, not yet handed on, in order
	done  bool // its producer returned
	Ended[R]
}

// grouped is the state the lanes and the collector share, under mu.
type grouped[T, R any] struct {
	mu     sync.Mutex
	cond   *sync.Cond
	ctx    context.Context
	groups []group[T, R]
	next   int  // the next group a lane takes
	stopAt int  // no lane takes a group past it (one whose producer failed)
	closed bool // no lane takes another group
	head   int  // the group being handed on: its lane never waits
	held   int  // items waiting, of every group
	window int
}

// handOn hands group k's items to emit as they come, until its producer
// has ended (or will never start), and returns how it ended.
func (g *grouped[T, R]) handOn(k int, emit func(T)) Ended[R] {
	for {
		items, fin := g.collect(k)
		for _, it := range items {
			emit(it)
		}
		if fin != nil {
			return *fin
		}
	}
}

// lane runs the producers of the groups it takes, one after another.
func (g *grouped[T, R]) lane(produce func(ctx context.Context, k int, put func(T)) (R, error)) {
	for {
		k, ok := g.take()
		if !ok {
			return
		}
		r, err := produce(g.ctx, k, func(it T) { g.put(k, it) })
		g.finish(k, r, err)
	}
}

// take gives a lane the next group, unless the sweep is stopping.
func (g *grouped[T, R]) take() (int, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed || g.next >= g.stopAt || g.ctx.Err() != nil {
		g.closed = true
		g.cond.Broadcast()
		return 0, false
	}
	k := g.next
	g.next++
	g.groups[k].Started = true
	return k, true
}

// put adds an item of group k. A group ahead of the head waits while the
// window is full (an interrupted sweep waits for nothing).
func (g *grouped[T, R]) put(k int, it T) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for k != g.head && g.held >= g.window && g.ctx.Err() == nil {
		g.cond.Wait()
	}
	g.groups[k].items = append(g.groups[k].items, it)
	g.held++
	g.cond.Broadcast()
}

// finish records the end of group k's producer.
func (g *grouped[T, R]) finish(k int, r R, err error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.groups[k].done, g.groups[k].Result, g.groups[k].Err = true, r, err
	if err != nil {
		g.stopAt = min(g.stopAt, k+1)
	}
	g.cond.Broadcast()
}

// collect makes k the head and waits for its next items; once none is
// left and its producer has ended (or will never start), it also returns
// how the group ended.
func (g *grouped[T, R]) collect(k int) ([]T, *Ended[R]) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.head != k {
		g.head = k
		g.cond.Broadcast() // k's lane may wait in put
	}
	gr := &g.groups[k]
	for len(gr.items) == 0 && !gr.done && !(g.closed && !gr.Started) {
		g.cond.Wait()
	}
	items := gr.items
	gr.items = nil
	g.held -= len(items)
	if len(items) > 0 {
		g.cond.Broadcast()
		return items, nil
	}
	fin := gr.Ended
	gr.Ended = Ended[R]{Started: fin.Started} // the result is the collector's now
	return nil, &fin
}

// wake wakes every waiter (the sweep was cancelled).
func (g *grouped[T, R]) wake() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.cond.Broadcast()
}
