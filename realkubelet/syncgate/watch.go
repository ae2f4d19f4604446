package syncgate

import (
	"slices"

	"k8s.io/apimachinery/pkg/types"
)

// watchedWorker is one worker goroutine's update channel, seen through
// upstream's workerChannelFn hook set as a pass-through (the worker reads
// the very channel it would without the hook), so that after teardown the
// driver knows which UIDs' workers were never told to stop.
type watchedWorker struct {
	uid types.UID
	in  chan struct{}
}

// PassThrough is the hook in plain mode: it records the channel and
// returns it unchanged.
func (g *Gates) PassThrough(uid types.UID, in chan struct{}) <-chan struct{} {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.watched = append(g.watched, watchedWorker{uid: uid, in: in})
	return in
}

// OpenWorkers lists, sorted, the UIDs with a worker whose update channel
// is still open: one never told to stop. Only called after teardown, when
// no worker reads any more.
func (g *Gates) OpenWorkers() []types.UID {
	g.mu.Lock()
	defer g.mu.Unlock()
	var out []types.UID
	for _, w := range g.watched {
		select {
		case _, ok := <-w.in:
			if !ok {
				continue
			}
		default:
		}
		out = append(out, w.uid)
	}
	for _, p := range g.pipes {
		if !p.outClosed {
			out = append(out, p.uid)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// CloseOpenWorkers closes every worker channel still open, so the worker
// loops reading them end. Only after the run's findings are taken.
func (g *Gates) CloseOpenWorkers() {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, w := range g.watched {
		func() {
			defer func() { _ = recover() }() // closed already
			close(w.in)
		}()
	}
	for _, p := range g.pipes {
		if !p.outClosed {
			close(p.out)
			p.outClosed = true
		}
	}
}
