package main

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"golang.org/x/term"
)

// progress reports how far a long command has got, on stderr. On a
// terminal it is one line updated in place (at most five times a second);
// otherwise (CI logs, pipes) it is a plain line when the first unit is done
// and at every tenth of the way, so a log shows the job is alive without
// drowning in updates. It is never
// part of the results: stdout stays a function of the results alone.
type progress struct {
	mu       sync.Mutex
	w        io.Writer
	total    int
	n        int
	terminal bool
	last     time.Time // wall clock, only to throttle the terminal line
	decile   int       // the last tenth reported as a plain line
}

func newProgress(w io.Writer, total int) *progress {
	p := &progress{w: w, total: total}
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		p.terminal = true
	}
	return p
}

// tick counts one unit of work done (a seed).
func (p *progress) tick() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.n++
	p.report(p.n, "seeds")
}

// set says n units are done, with what to say about them.
func (p *progress) set(n int, what string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.n = n
	p.report(n, what)
}

func (p *progress) report(n int, what string) {
	if p.terminal {
		if time.Since(p.last) > 200*time.Millisecond {
			p.last = time.Now()
			fmt.Fprintf(p.w, "\r\033[K%d/%d %s", n, p.total, what)
		}
		return
	}
	if p.total > 0 && (n == 1 || n*10/p.total > p.decile) {
		p.decile = n * 10 / p.total
		fmt.Fprintf(p.w, "%d/%d %s\n", n, p.total, what)
	}
}

// done clears the terminal line.
func (p *progress) done() {
	if p.terminal {
		fmt.Fprint(p.w, "\r\033[K")
	}
}
