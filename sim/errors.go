package sim

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"time"
)

// DeadlockError: nothing can run, no timer is pending, and some goroutine
// waits for something that can no longer happen.
type DeadlockError struct {
	At      time.Duration // virtual time since the epoch
	Steps   int64
	Blocked []Blocked // sorted by goroutine name
}

// Blocked is one parked goroutine and what it waits on.
type Blocked struct {
	Goroutine string
	Waits     string // "lock podLock (held by worker/a)", "wait updates/a", …
	Daemon    bool
}

func (e *DeadlockError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "sim: deadlock at %v after %d steps: %d goroutines blocked", e.At, e.Steps, len(e.Blocked))
	for _, bl := range e.Blocked {
		fmt.Fprintf(&b, "\n  %s: %s", bl.Goroutine, bl.Waits)
		if bl.Daemon {
			b.WriteString(" (daemon)")
		}
	}
	return b.String()
}

// LimitError: the run hit a bound on scheduling points or virtual time.
type LimitError struct {
	Kind      string // "steps" or "time"
	Steps     int64
	At        time.Duration
	Goroutine string // the goroutine at the last scheduling point, if any
	Detail    string
}

func (e *LimitError) Error() string {
	who := ""
	if e.Goroutine != "" {
		who = " in " + e.Goroutine
	}
	return fmt.Sprintf("sim: %s limit at %v after %d steps%s: %s", e.Kind, e.At, e.Steps, who, e.Detail)
}

// PanicError: a simulated goroutine panicked.
type PanicError struct {
	Goroutine string
	Value     any
	Stack     string
	At        time.Duration
	Steps     int64
}

func (e *PanicError) Error() string {
	return fmt.Sprintf("sim: goroutine %s panicked at %v after %d steps: %v", e.Goroutine, e.At, e.Steps, e.Value)
}

// HotLoopError: a simulated goroutine held the baton for more than the real
// time bound without reaching a scheduling point (a loop that never calls a
// simulation operation, or a block on a real channel or lock). The run is
// abandoned; the goroutine keeps running and cannot be unwound.
type HotLoopError struct {
	Goroutine string
	Bound     time.Duration
	Handoffs  int64 // baton handoffs before the goroutine got stuck
	Stack     string
}

func (e *HotLoopError) Error() string {
	return fmt.Sprintf("sim: goroutine %s held the baton for over %v of real time (after %d handoffs) without reaching a scheduling point:\n%s",
		e.Goroutine, e.Bound, e.Handoffs, e.Stack)
}

// deadlock returns the DeadlockError for a run where nothing can run any
// more, or nil when every parked goroutine is a daemon waiting legitimately.
func (s *Scheduler) deadlock() error {
	var blocked []Blocked
	stuck := false
	for _, g := range s.all {
		if g.state != gParked || g.waitOp == opHalt {
			continue
		}
		if !g.daemon || g.waitOp == opLock {
			stuck = true
		}
		blocked = append(blocked, Blocked{Goroutine: g.name, Waits: s.describeWait(g), Daemon: g.daemon})
	}
	if !stuck {
		return nil
	}
	slices.SortStableFunc(blocked, func(a, b Blocked) int { return strings.Compare(a.Goroutine, b.Goroutine) })
	return &DeadlockError{At: s.Elapsed(), Steps: s.steps, Blocked: blocked}
}

func (s *Scheduler) describeWait(g *goroutine) string {
	if g.waitObj < 0 {
		return g.waitOp.String()
	}
	o := s.objects[g.waitObj]
	switch g.waitOp {
	case opLock:
		return "lock " + o.name + heldBy(g)
	case opWait:
		return "wait " + kindNames[o.kind] + " " + o.name
	case opEventWait:
		return "wait " + kindNames[o.kind] + " " + o.name
	}
	return g.waitOp.String() + " " + o.name
}

// heldBy names the holder of the mutex g waits for.
func heldBy(g *goroutine) string {
	if g.mu == nil || g.mu.holder == nil {
		return ""
	}
	return " (held by " + g.mu.holder.name + ")"
}

func stack() string { return string(debug.Stack()) }

// holderStack returns the stacks of simulated goroutines that are not
// parked waiting for the baton: in a hot loop, the one holding it. When
// several simulations share the process, every such stack is returned.
func holderStack() string {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	var hot []string
	for _, block := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(block, "sim.(*Scheduler).trampoline") &&
			!strings.Contains(block, "sim.(*goroutine).awaitBaton") && !strings.Contains(block, "sim.abandon(") {
			hot = append(hot, block)
		}
	}
	if len(hot) == 0 {
		return "(stack not found)"
	}
	return strings.Join(hot, "\n\n")
}
