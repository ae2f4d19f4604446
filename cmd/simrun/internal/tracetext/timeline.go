package tracetext

import (
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/podsim/podsim/report"
)

// The report's timeline is read from the canonical trace, the run's one
// record that is stable by contract (replay --trace, --expect): one line
// per step, "<virtual time> <goroutine> <op> [<object>] [<detail>]". A
// goroutine's lane runs from its "go" to its "exit"; a blocking step
// (sleep, wait-block, event-block, lock-wait) opens a span that the
// goroutine's next step closes, which is when it ran again; the steps a
// goroutine took at one instant become one point, their list its label.

// spanKinds are the blocking steps and how their spans are drawn. A timed
// event-block is how the simulated runtime makes a call take time (a sync
// callback waits on its cancel event for its duration); one that waits
// "forever" is blocked.
var spanKinds = map[string]report.SpanKind{"sleep": report.Sleep, "wait-block": report.Blocked,
	"lock-wait": report.Blocked, "event-block": report.Timed}

// pointOps is how many steps a point's label lists before "… and N more".
const pointOps = 12

// laneBuilder gathers one goroutine's lane.
type laneBuilder struct {
	lane report.Lane
	open *report.Span // the blocking step it has not come back from
	at   time.Duration
	ops  []string // steps at instant at
}

func (b *laneBuilder) flush() {
	if len(b.ops) == 0 {
		return
	}
	label := fmt.Sprintf("%d steps\n%s", len(b.ops), strings.Join(b.ops[:min(len(b.ops), pointOps)], "\n"))
	if len(b.ops) == 1 {
		label = b.ops[0]
	}
	if len(b.ops) > pointOps {
		label += fmt.Sprintf("\n… and %d more", len(b.ops)-pointOps)
	}
	b.lane.Points = append(b.lane.Points, report.Point{At: b.at, Label: label})
	b.ops = b.ops[:0]
}

// step records one step the goroutine took.
func (b *laneBuilder) step(at time.Duration, op, rest string) {
	if b.open != nil {
		if at > b.open.Start {
			b.open.End = at
			b.lane.Spans = append(b.lane.Spans, *b.open)
		}
		b.open = nil
	}
	if at != b.at {
		b.flush()
		b.at = at
	}
	text := strings.TrimSpace(op + " " + rest)
	b.ops = append(b.ops, text)
	if kind, ok := spanKinds[op]; ok {
		if strings.HasSuffix(rest, " forever") {
			kind = report.Blocked
		}
		b.open = &report.Span{Kind: kind, Start: at, Label: text}
	}
	if op == "exit" || op == "panic" {
		b.lane.Exited, b.lane.Died = true, at
	}
}

// Timeline turns a canonical trace into the report's lanes, in the
// order the goroutines first appear; end is the run's last instant.
func Timeline(trace string, end time.Duration) report.Timeline {
	var order []*laneBuilder
	lanes := map[string]*laneBuilder{}
	get := func(name string, at time.Duration) *laneBuilder {
		b := lanes[name]
		if b == nil {
			b = &laneBuilder{lane: report.Lane{Name: name, Born: at}}
			lanes[name] = b
			order = append(order, b)
		}
		return b
	}
	for _, line := range Lines(trace) {
		f := strings.SplitN(line, " ", 4)
		if len(f) < 3 {
			continue
		}
		at, err := time.ParseDuration(f[0])
		if err != nil {
			continue
		}
		rest := ""
		if len(f) == 4 {
			rest = f[3]
		}
		if f[2] == "go" && rest != "" {
			get(rest, at)
		}
		if f[1] != "-" {
			get(f[1], at).step(at, f[2], rest)
		}
	}
	t := report.Timeline{End: end}
	for _, b := range order {
		b.flush()
		if b.open != nil && end > b.open.Start {
			b.open.End = end
			b.open.Label += " (until the end of the run)"
			b.lane.Spans = append(b.lane.Spans, *b.open)
		}
		t.Lanes = append(t.Lanes, b.lane)
	}
	return t
}

// podNamed finds the pod a violation's message names ("pod a (TR): ...",
// "broken for pod a: ...").
var podNamed = regexp.MustCompile(`\bpod ([A-Za-z0-9][A-Za-z0-9._-]*)`)

// LaneOf guesses the goroutine a violation concerns: a lane named in its
// message (the linearizability oracle quotes "worker/a ..."), else the
// worker of the pod it names. "" when neither is a lane of the run.
func LaneOf(msg string, t report.Timeline) string {
	best := ""
	for _, l := range t.Lanes {
		if strings.Contains(msg, l.Name) && strings.Contains(l.Name, "/") && len(l.Name) > len(best) {
			best = l.Name
		}
	}
	if best != "" {
		return best
	}
	if m := podNamed.FindStringSubmatch(msg); m != nil {
		for _, l := range t.Lanes {
			if l.Name == "worker/"+strings.TrimRight(m[1], ".:,") {
				return l.Name
			}
		}
	}
	return ""
}

// Windows draws the whole run and, when the run is much longer
// than what led to the first failure, first a close-up of it: most runs
// go on for minutes of virtual time after a violation found in seconds.
func Windows(end, first time.Duration) []report.Window {
	whole := report.Window{Title: "whole run", From: 0, To: end}
	span := max(4*time.Second, end/20).Round(time.Second)
	if end <= span*3/2 {
		return []report.Window{whole}
	}
	from := max(0, first-span*3/4).Truncate(time.Second)
	to := min(end, from+span)
	return []report.Window{{Title: "around the first violation", From: from, To: to}, whole}
}
