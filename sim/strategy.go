package sim

import "fmt"

// Strategy decides, at every scheduling point, which runnable goroutine
// holds the baton next. Every decision it makes is drawn from the run's
// Source, so a strategy adds no randomness of its own.
type Strategy interface {
	String() string
	start(src Source) picker
}

// picker is the per-run state of a Strategy.
type picker interface {
	// spawned is told of every new goroutine, in spawn order.
	spawned(g *goroutine)
	// pick chooses among runnable (in spawn order). At a scheduling point
	// step is its number (from 1) and cur the goroutine at it; when the
	// current goroutine has just blocked or exited, step is 0 and cur nil.
	pick(step int64, cur *goroutine, runnable []*goroutine) *goroutine
	// pickWaiter chooses which of several waiters (oldest first) a released
	// mutex goes to.
	pickWaiter(waiters []*goroutine) int
}

// RandomWalk picks uniformly among the runnable goroutines at every
// scheduling point; choice 0 keeps the current goroutine running, the rest
// follow in spawn order. Under a Source that answers 0 it is a cooperative
// scheduler: each goroutine runs until it blocks.
type RandomWalk struct{}

func (RandomWalk) String() string { return "random" }

func (RandomWalk) start(src Source) picker { return &walk{src: src} }

type walk struct{ src Source }

func (w *walk) spawned(*goroutine)             {}
func (w *walk) pickWaiter(ws []*goroutine) int { return w.src.Intn(len(ws)) }

func (w *walk) pick(_ int64, cur *goroutine, runnable []*goroutine) *goroutine {
	if len(runnable) == 1 {
		return runnable[0]
	}
	c := w.src.Intn(len(runnable))
	if cur == nil || cur.state != gRunnable {
		return runnable[c]
	}
	return walkChoice(c, cur, runnable)
}

// walkChoice is the goroutine the random walk's choice c names at a
// scheduling point of cur (runnable): 0 keeps cur, c > 0 is the c-th
// runnable goroutine other than cur, runnable[c] if cur comes before it
// and runnable[c-1] if not. Scheduler.point calls it directly under a
// random walk (one call less on the hot path than pick).
func walkChoice(c int, cur *goroutine, runnable []*goroutine) *goroutine {
	if c == 0 {
		return cur
	}
	for _, g := range runnable[:c] {
		if g == cur {
			return runnable[c]
		}
	}
	return runnable[c-1]
}

// PCT is Probabilistic Concurrency Testing (Burckhardt et al., ASPLOS 2010):
// every goroutine gets a random priority when it is spawned, the highest
// priority runnable goroutine always runs, and at Depth-1 scheduling points
// drawn uniformly from [1, Steps] the running goroutine drops below every
// initial priority. A bug that needs d ordering constraints among n
// goroutines in a run of k steps is found by one run with probability at
// least 1/(n·k^(d-1)), whatever the program.
type PCT struct {
	// Depth is the bug depth d searched for (>= 1); Depth-1 change points.
	Depth int
	// Steps is the expected number of scheduling points k in a run; change
	// points fall in [1, Steps].
	Steps int
}

func (p PCT) String() string { return fmt.Sprintf("pct(d=%d,k=%d)", p.Depth, p.Steps) }

func (p PCT) start(src Source) picker {
	if p.Depth < 1 || p.Steps < 1 {
		panic(fmt.Sprintf("sim: PCT needs Depth >= 1 and Steps >= 1, got %d and %d", p.Depth, p.Steps))
	}
	st := &pct{src: src, depth: p.Depth}
	for i := 1; i < p.Depth; i++ {
		st.changeAt = append(st.changeAt, int64(src.Intn(p.Steps)+1))
	}
	return st
}

// pctBand separates initial priorities (above depth) from the low
// priorities 1..depth-1 that change points assign.
const pctBand = 1 << 30

type pct struct {
	src      Source
	depth    int
	changeAt []int64 // change point i (1-based) lowers priority to i
}

func (p *pct) spawned(g *goroutine) {
	// A random rank in the initial band; ties go to the older goroutine.
	g.prio = int64(p.depth) + 1 + int64(p.src.Intn(pctBand))
}

func (p *pct) pick(step int64, cur *goroutine, runnable []*goroutine) *goroutine {
	// At a change point the goroutine at it drops below every initial
	// priority, before the pick.
	for i, at := range p.changeAt {
		if at == step && cur != nil {
			cur.prio = int64(i + 1)
		}
	}
	best := runnable[0]
	for _, g := range runnable[1:] {
		if g.prio > best.prio {
			best = g
		}
	}
	return best
}

func (p *pct) pickWaiter(ws []*goroutine) int {
	best := 0
	for i, g := range ws {
		if g.prio > ws[best].prio {
			best = i
		}
	}
	return best
}
