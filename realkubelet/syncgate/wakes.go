package syncgate

import (
	"slices"

	"k8s.io/apimachinery/pkg/types"
)

// Held wake-ups (the driver's "hold-wakes" move, realkubelet/wakes.go):
// ChannelFn is set as the pod workers' workerChannelFn hook, and each
// worker's signals wait in a pipe until the driver moves them.

// pipe is one worker goroutine's notification channel (in, written by the
// pod workers under their lock) and the channel its loop reads (out). No
// goroutine forwards between them: the driver moves a wake-up from in to
// out in a step of its own ("wake <uid>"), so the seed decides when a
// worker reads its channel, and nothing runs between steps. gen numbers
// the workers of one UID (a purged UID's old worker may still be waiting
// to read a signal when the next incarnation's worker starts, exactly as
// upstream's goroutines may be scheduled late).
type pipe struct {
	uid       types.UID
	gen       int
	in        chan struct{}
	out       chan struct{}
	outClosed bool
}

// ChannelFn is the hook: the worker loop reads out (buffered 1, like in).
func (g *Gates) ChannelFn(uid types.UID, in chan struct{}) <-chan struct{} {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.forwarders[uid]++
	p := &pipe{uid: uid, gen: g.forwarders[uid], in: in, out: make(chan struct{}, 1)}
	g.pipes = append(g.pipes, p)
	return p.out
}

// pending reports whether p has a wake-up to move: a signal in in, or in
// closed (the worker must see the close too). Only the driver calls it,
// between steps, so the probe cannot race a writer.
func (p *pipe) pending() bool {
	if p.outClosed {
		return false
	}
	if len(p.in) > 0 {
		return true
	}
	select {
	case _, ok := <-p.in:
		return !ok // open and empty: the default case; a value cannot appear
	default:
		return false
	}
}

// move hands p's signal to the worker loop (coalescing with one already
// waiting there, as the 1-buffered channel does), or closes out once in is
// closed and drained.
func (p *pipe) move() {
	select {
	case _, ok := <-p.in:
		if !ok {
			close(p.out)
			p.outClosed = true
			return
		}
		select {
		case p.out <- struct{}{}:
		default:
		}
	default:
	}
}

// Wakes lists the UIDs with a wake-up to move, sorted, once each.
func (g *Gates) Wakes() []types.UID {
	g.mu.Lock()
	defer g.mu.Unlock()
	var out []types.UID
	for _, p := range g.pipes {
		if p.pending() && !slices.Contains(out, p.uid) {
			out = append(out, p.uid)
		}
	}
	slices.Sort(out)
	return out
}

// ReleaseWake moves the wake-up of uid's oldest worker that has one. ok
// is false if none has; late is true if that worker is not uid's newest
// and got a signal (not just the close): an older incarnation's goroutine
// will now read the UID's current record (GE).
func (g *Gates) ReleaseWake(uid types.UID) (ok, late bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for i, p := range g.pipes {
		if p.uid == uid && p.pending() {
			p.move()
			if p.outClosed {
				g.pipes = slices.Delete(g.pipes, i, i+1)
			}
			return true, !p.outClosed && p.gen < g.forwarders[uid]
		}
	}
	return false, false
}
