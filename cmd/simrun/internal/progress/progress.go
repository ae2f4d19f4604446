// Package progress reports how far a long command has got (simrun's
// sweeps and shrink), on stderr: a bar on a terminal, plain lines in a log.
package progress

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"golang.org/x/term"
)

// Meter reports how far a long command has got, on stderr. On a
// terminal it is a bar updated in place (at most five times a second) with
// the rate and the time left; otherwise (CI logs, pipes) it is a plain
// line when the first unit is done and then one every plainEvery, so a log
// shows the job is alive. It reads the wall clock, but only for what it
// prints on stderr: never part of the results, and stdout stays a function
// of the results alone.
type Meter struct {
	mu       sync.Mutex
	w        io.Writer
	total    uint64
	n        uint64
	what     string
	terminal bool
	now      func() time.Time
	began    time.Time
	last     time.Time // the last line or bar printed
}

// plainEvery is the period of progress lines off a terminal.
const plainEvery = 5 * time.Second

// New is a meter of total units ("seeds" until Set says otherwise) that
// writes to w.
func New(w io.Writer, total uint64) *Meter {
	p := &Meter{w: w, total: total, what: "seeds", now: time.Now}
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		p.terminal = true
	}
	p.began = p.now()
	return p
}

// Tick counts one unit of work done (a seed).
func (p *Meter) Tick() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.n++
	p.report()
}

// Set says n units are done, with what to say about them.
func (p *Meter) Set(n int, what string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.n, p.what = uint64(n), what
	p.report()
}

func (p *Meter) report() {
	now := p.now()
	switch {
	case p.terminal && now.Sub(p.last) >= 200*time.Millisecond:
		fmt.Fprintf(p.w, "\r\033[K%s", p.line(now, true))
	case !p.terminal && (p.n == 1 || now.Sub(p.last) >= plainEvery):
		fmt.Fprintln(p.w, p.line(now, false))
	default:
		return
	}
	p.last = now
}

// line is "n/total what, r/s, ETA t", with a bar in front on a terminal.
func (p *Meter) line(now time.Time, bar bool) string {
	s := fmt.Sprintf("%d/%d %s", p.n, p.total, p.what)
	if bar && p.total > 0 {
		const width = 24
		full := int(min(p.n, p.total) * width / p.total)
		s = "[" + strings.Repeat("#", full) + strings.Repeat("-", width-full) + "] " + s
	}
	if el := now.Sub(p.began).Seconds(); el >= 1 && p.n > 0 {
		rate := float64(p.n) / el
		s += fmt.Sprintf(", %.0f/s", rate)
		if p.n < p.total {
			s += ", ETA " + time.Duration(float64(p.total-p.n)/rate*float64(time.Second)).Round(time.Second).String()
		}
	}
	return s
}

// Done clears the terminal bar.
func (p *Meter) Done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.terminal {
		fmt.Fprint(p.w, "\r\033[K")
	}
}
