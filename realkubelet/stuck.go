package realkubelet

import (
	"fmt"
	"path"
	"runtime"
	"slices"
	"strings"
	"testing"
	"testing/synctest"

	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/history"
)

// A run ends by tearing every pod down (Teardown) so that the synctest
// bubble can close: synctest requires every goroutine started in it to
// have exited when the run returns, and panics ("main bubble goroutine has
// exited but blocked goroutines remain") otherwise. A kubelet bug that
// leaves a worker goroutine running forever (its update channel never
// closed, or blocked on something that never comes) would crash the whole
// sweep there. Instead, after Teardown the driver lists the goroutines of
// its bubble that run kubelet code (stuckGoroutines) and reports each as
// a liveness finding (L2: finished and not desired ⇒ forgotten, which
// includes the worker going away), naming the goroutine, where it waits
// and the last step of each pod whose update channel is still open;
// Bubble recovers the panic that follows, so the sweep goes on.
//
// Limit: a goroutine that spins, or blocks on a mutex held forever, is not
// durably blocked, so synctest.Wait never returns and the run hangs until
// the test binary's -test.timeout (realrun gate's sweeps: 60m) kills it.

// Bubble runs run in a synctest bubble and returns its result. If the run
// left blocked goroutines behind, the runtime's panic is recovered and the
// result keeps (or gains) a liveness finding for them.
func Bubble(t *testing.T, run func() Result) (r Result) {
	t.Helper()
	defer func() {
		p := recover()
		if p == nil {
			return
		}
		if !strings.Contains(fmt.Sprint(p), "blocked goroutines remain") {
			panic(p)
		}
		for _, f := range r.Findings {
			if f.Invariant == "L2" && strings.HasPrefix(f.Message, teardownPrefix) {
				return
			}
		}
		r.Findings = append(r.Findings, Finding{Violation: history.Violation{Oracle: "liveness", Invariant: "L2",
			Message: teardownPrefix + "the bubble still had blocked goroutines when the run ended (none runs kubelet code)"}})
	}()
	synctest.Test(t, func(t *testing.T) { r = run() })
	return r
}

const teardownPrefix = "teardown: "

// watchedWorker is one worker goroutine's update channel, seen through
// upstream's workerChannelFn hook set as a pass-through (the worker reads
// the very channel it would without the hook), so that after teardown the
// driver knows which UIDs' workers were never told to stop.
type watchedWorker struct {
	uid types.UID
	in  chan struct{}
}

// passThrough is the hook in plain mode: it records the channel and
// returns it unchanged.
func (g *Gates) passThrough(uid types.UID, in chan struct{}) <-chan struct{} {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.watched = append(g.watched, watchedWorker{uid: uid, in: in})
	return in
}

// openWorkers lists, sorted, the UIDs with a worker whose update channel
// is still open: one never told to stop. Only called after teardown, when
// no worker reads any more.
func (g *Gates) openWorkers() []types.UID {
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
	sortUIDs(out)
	return slices.Compact(out)
}

// stuckWorkers are the liveness findings for goroutines running kubelet
// code that outlived Teardown, one per distinct goroutine shape.
func (d *Driver) stuckWorkers() []Finding {
	d.waitQuiet()
	stuck := stuckGoroutines()
	if len(stuck) == 0 {
		return nil
	}
	var pods []string
	for _, uid := range d.gates.openWorkers() {
		s := d.lastMoved[uid]
		last := "none"
		if s > 0 {
			last = fmt.Sprintf("%d (%s)", s, d.Moves[s-1])
		}
		pods = append(pods, fmt.Sprintf("%s, last step %s", uid, last))
	}
	who := "no pod's update channel is open"
	if len(pods) > 0 {
		who = "update channel still open for pod " + strings.Join(pods, "; pod ")
	}
	var out []Finding
	for _, g := range stuck {
		out = append(out, Finding{Violation: history.Violation{Oracle: "liveness", Invariant: "L2",
			Message: fmt.Sprintf("%s%s cannot be torn down; %s", teardownPrefix, g, who)}})
	}
	// Reported: now let what can go, go (the run is over, nothing calls
	// the workers any more), so the bubble closes and no goroutine leaks
	// into the next run. What still blocks is left to Bubble.
	d.gates.closeOpenWorkers()
	d.waitQuiet()
	return out
}

// closeOpenWorkers closes every worker channel still open, so the worker
// loops reading them end. Only after the run's findings are taken.
func (g *Gates) closeOpenWorkers() {
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

// stuckGoroutines describes the other goroutines of the caller's bubble
// whose stack runs kubelet code: "goroutine <function> (<wait reason> at
// <file:line>, created by <function>)", ×N when several look alike,
// sorted. Goroutine ids and addresses are left out, so the text is the
// same on every run.
func stuckGoroutines() []string {
	buf := make([]byte, 1<<20)
	for n := runtime.Stack(buf, true); ; n = runtime.Stack(buf, true) {
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	blocks := strings.Split(string(buf), "\n\n")
	bubble := bubbleOf(blocks[0])
	if bubble == "" {
		return nil
	}
	count := map[string]int{}
	for _, b := range blocks[1:] {
		if bubbleOf(b) != bubble || !strings.Contains(b, "k8s.io/kubernetes/") {
			continue
		}
		count[describeGoroutine(b)]++
	}
	var out []string
	for g, n := range count {
		if n > 1 {
			g += fmt.Sprintf(" ×%d", n)
		}
		out = append(out, g)
	}
	slices.Sort(out)
	return out
}

// bubbleOf is the "synctest bubble N" of a goroutine's header, or "".
func bubbleOf(block string) string {
	header, _, _ := strings.Cut(block, "\n")
	_, after, ok := strings.Cut(header, "synctest bubble ")
	if !ok {
		return ""
	}
	id, _, _ := strings.Cut(after, "]")
	id, _, _ = strings.Cut(id, ",")
	return id
}

// describeGoroutine names a goroutine by its innermost kubelet frame (the
// function and where it waits) and its creator.
func describeGoroutine(block string) string {
	lines := strings.Split(block, "\n")
	header := lines[0]
	reason := header
	if i, j := strings.Index(header, "["), strings.Index(header, ","); i >= 0 && j > i {
		reason = header[i+1 : j]
	}
	fn, at, creator := "?", "?", "?"
	for i := 1; i+1 < len(lines); i += 2 {
		name, file := strings.TrimSpace(lines[i]), strings.TrimSpace(lines[i+1])
		if strings.HasPrefix(name, "created by ") {
			creator = funcName(strings.TrimPrefix(name, "created by "))
			break
		}
		if fn == "?" && strings.Contains(name, "k8s.io/kubernetes/") {
			fn, at = funcName(name), fileLine(file)
		}
	}
	return fmt.Sprintf("goroutine %s (%s at %s, created by %s)", fn, reason, at, creator)
}

// funcName strips arguments and " in goroutine N" from a frame line.
func funcName(s string) string {
	s, _, _ = strings.Cut(s, " in goroutine")
	if i := strings.LastIndex(s, "("); i > 0 && strings.HasSuffix(s, ")") {
		s = s[:i]
	}
	return s
}

// fileLine is "file.go:123" of a frame's location line.
func fileLine(s string) string {
	s, _, _ = strings.Cut(s, " +0x")
	return path.Base(s)
}
