package report

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// The timeline is drawn as SVG here rather than by a script in the page:
// the page then shows the same picture with JavaScript off, in a
// screenshot, or printed, and its bytes are a function of the Page.
// Coordinates are in the SVG's own units; the SVG scales to the page's
// width.
const (
	chartWidth = 1200.0
	labelWidth = 150.0 // the goroutine names' column
	plotWidth  = chartWidth - labelWidth - 16
	axisHeight = 34.0 // one row of violation labels and the time axis, above the lanes
	labelRow   = 14.0 // each further row of violation labels
	labelChar  = 7.0  // the width of a character of a violation label, roughly
	laneHeight = 22.0
	pointWidth = 2.0
)

// chart is one window of the timeline, laid out.
type chart struct {
	Title      string
	Range      string
	Width      string
	Height     string
	PlotRight  string
	AxisY      string
	TickY      string
	Ticks      []tick
	Lanes      []laneRow
	Violations []marker
}

type tick struct{ X, Label string }

type laneRow struct {
	Name, Y, TextY, MidY, Height string
	Highlight                    bool
	Life                         *box
	Spans                        []box
	Points                       []box
	Dots                         []dot
}

// dot is a violation on the lane of the goroutine it concerns.
type dot struct{ X, Y, Title string }

// box is a rectangle with a hover text.
type box struct {
	X, Y, W, H, Class, Title string
}

// marker is the violations found at one instant: a line across the lanes.
type marker struct {
	X, LabelX, LabelY, Label, Title, Anchor string
	First                                   bool
	at                                      float64
}

type legendItem struct{ Class, Label string }

func legend() []legendItem {
	return []legendItem{{"life", "goroutine alive"}, {"timed", "timed wait (a simulated call taking its time)"},
		{"sleep", "sleeping"}, {"blocked", "blocked on a lock, signal or event"},
		{"point", "steps at one instant (hover for the list)"}, {"violation", "violation"}}
}

// charts lays out one chart per window of the timeline.
func charts(t Timeline, vs []Violation) []chart {
	if len(t.Lanes) == 0 {
		return nil
	}
	windows := t.Windows
	if len(windows) == 0 {
		windows = []Window{{Title: "whole run", From: 0, To: t.End}}
	}
	out := make([]chart, 0, len(windows))
	for _, w := range windows {
		if w.To <= w.From {
			w.To = w.From + time.Second
		}
		out = append(out, layout(t, w, vs))
	}
	return out
}

// scale maps virtual time to x within one window.
type scale struct{ from, to time.Duration }

func (s scale) x(t time.Duration) float64 {
	return labelWidth + float64(t-s.from)/float64(s.to-s.from)*plotWidth
}

// clip bounds [start, end] to the window; ok is false when they miss it.
func (s scale) clip(start, end time.Duration) (x, w float64, ok bool) {
	if end < s.from || start > s.to {
		return 0, 0, false
	}
	x0, x1 := s.x(max(start, s.from)), s.x(min(end, s.to))
	return x0, max(x1-x0, 1), true
}

func layout(t Timeline, w Window, vs []Violation) chart {
	s := scale{w.From, w.To}
	marks, rows := markers(vs, s)
	top := axisHeight + labelRow*float64(rows-1)
	height := top + laneHeight*float64(len(t.Lanes)) + 4
	c := chart{Title: w.Title, Range: w.From.String() + " to " + w.To.String(), Width: num(chartWidth),
		Height: num(height), PlotRight: num(labelWidth + plotWidth), AxisY: num(top), TickY: num(top - 5),
		Violations: marks}
	for _, at := range ticks(w.From, w.To) {
		c.Ticks = append(c.Ticks, tick{X: num(s.x(at)), Label: at.String()})
	}
	for i, l := range t.Lanes {
		row := laneLayout(l, s, t.End, top+laneHeight*float64(i))
		if l.Highlight {
			row.Dots = dots(l.Name, vs, s, top+laneHeight*float64(i)+laneHeight/2)
		}
		c.Lanes = append(c.Lanes, row)
	}
	return c
}

// dots mark, on a goroutine's lane, the instants of the violations that
// concern it.
func dots(lane string, vs []Violation, s scale, y float64) []dot {
	var out []dot
	seen := map[time.Duration]bool{}
	for _, v := range vs {
		if v.Lane != lane || v.At < s.from || v.At > s.to || seen[v.At] {
			continue
		}
		seen[v.At] = true
		out = append(out, dot{X: num(s.x(v.At)), Y: num(y), Title: v.At.String() + " " + v.Oracle + " " + v.Invariant +
			" in " + lane + ": " + v.Message})
	}
	return out
}

func laneLayout(l Lane, s scale, end time.Duration, y float64) laneRow {
	row := laneRow{Name: l.Name, Y: num(y), TextY: num(y + laneHeight/2 + 4), MidY: num(y + laneHeight/2),
		Height: num(laneHeight), Highlight: l.Highlight}
	died := end
	if l.Exited {
		died = l.Died
	}
	if x, wd, ok := s.clip(l.Born, died); ok {
		title := l.Name + ": from " + l.Born.String()
		if l.Exited {
			title += " to its exit at " + died.String()
		} else {
			title += " to the end of the run"
		}
		row.Life = &box{X: num(x), Y: num(y + laneHeight/2 - 1), W: num(wd), H: "2", Class: "life", Title: title}
	}
	for _, sp := range l.Spans {
		if x, wd, ok := s.clip(sp.Start, sp.End); ok {
			row.Spans = append(row.Spans, box{X: num(x), Y: num(y + 5), W: num(wd), H: num(laneHeight - 10),
				Class: sp.Kind.class(), Title: sp.Start.String() + "–" + sp.End.String() + ": " + sp.Label})
		}
	}
	row.Points = points(l, s, y)
	return row
}

// points draws a lane's points. Points closer than a tick's width would
// be drawn on top of each other: they become one tick, whose hover text
// is the first point's and says how many more it stands for, so that a
// long run's page stays a size a browser opens at once.
func points(l Lane, s scale, y float64) []box {
	var out []box
	lastX, merged := -1.0, 0
	note := func() {
		if merged > 0 {
			out[len(out)-1].Title += fmt.Sprintf("\n(and %d more instants within a tick's width)", merged)
		}
	}
	for _, p := range l.Points {
		if p.At < s.from || p.At > s.to {
			continue
		}
		x := s.x(p.At)
		if lastX >= 0 && x-lastX < pointWidth {
			merged++
			continue
		}
		note()
		lastX, merged = x, 0
		out = append(out, box{X: num(x - pointWidth/2), Y: num(y + 3), W: num(pointWidth), H: num(laneHeight - 6),
			Class: "point", Title: p.At.String() + " " + l.Name + ": " + p.Label})
	}
	note()
	return out
}

// markers groups the violations by instant, in order of first appearance,
// so that violations found together share one line and one label; labels
// that would overlap go on rows of their own. nrows is at least 1.
func markers(vs []Violation, s scale) (out []marker, nrows int) {
	index := map[time.Duration]int{}
	for i, v := range vs {
		if v.At < s.from || v.At > s.to {
			continue
		}
		text := v.At.String() + " " + v.Oracle + " " + v.Invariant + ": " + v.Message
		if j, ok := index[v.At]; ok {
			if !strings.Contains(", "+out[j].Label+", ", ", "+v.Invariant+", ") {
				out[j].Label += ", " + v.Invariant
			}
			out[j].Title += "\n" + text
			continue
		}
		index[v.At] = len(out)
		out = append(out, marker{X: num(s.x(v.At)), Label: v.Invariant, Title: text, First: i == 0, at: s.x(v.At)})
	}
	var rows [][][2]float64 // the extents of the labels on each row
	for i := range out {
		m := &out[i]
		if m.First {
			m.Label = "first violation: " + m.Label
		}
		width := labelChar * float64(len(m.Label))
		ext, lx := [2]float64{m.at + 4, m.at + 4 + width}, m.at+4
		m.Anchor = "start"
		if ext[1] > chartWidth {
			ext, lx, m.Anchor = [2]float64{m.at - 4 - width, m.at - 4}, m.at-4, "end"
		}
		row := 0
		for row < len(rows) && overlaps(rows[row], ext) {
			row++
		}
		if row == len(rows) {
			rows = append(rows, nil)
		}
		rows[row] = append(rows[row], ext)
		m.LabelX, m.LabelY = num(lx), num(13+labelRow*float64(row))
	}
	return out, max(len(rows), 1)
}

// overlaps says whether ext comes within a few units of any of exts.
func overlaps(exts [][2]float64, ext [2]float64) bool {
	for _, e := range exts {
		if ext[0] < e[1]+8 && e[0] < ext[1]+8 {
			return true
		}
	}
	return false
}

// ticks are round instants in [from, to], about eight of them.
func ticks(from, to time.Duration) []time.Duration {
	step := time.Duration(1)
	for mag := time.Duration(1); ; mag *= 10 {
		found := false
		for _, m := range []time.Duration{1, 2, 5} {
			if (to-from)/(m*mag) <= 8 {
				step, found = m*mag, true
				break
			}
		}
		if found || mag > time.Duration(1<<62)/10 {
			break
		}
	}
	var out []time.Duration
	for at := (from + step - 1) / step * step; at <= to; at += step {
		out = append(out, at)
	}
	return out
}

// num formats a coordinate with one decimal and no trailing ".0".
func num(f float64) string {
	return strings.TrimSuffix(strconv.FormatFloat(f, 'f', 1, 64), ".0")
}
