// Package report renders one failing seed as a single self-contained HTML
// page: the verdict and its violations, the story to read, a timeline of
// the simulated goroutines on virtual time, and porcupine's visualisation
// opened at the first error.
//
// The page is for a kubelet engineer who was handed a failing seed and
// may be offline: it loads nothing (no scripts, fonts, styles or images
// from anywhere), the timeline is SVG drawn here in Go so it needs no
// JavaScript, and the only script on the page is porcupine's own, inside a
// frame. The caller fills a plain Page; this package knows
// nothing of the simulator, so it can render any run that can be told as
// lanes of spans on a clock. The same Page gives the same bytes.
package report

import (
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"time"
)

// Page is everything one report shows. Every string is text: it is
// escaped, never interpreted as HTML.
type Page struct {
	Title     string // the page's heading, e.g. "update-storm seed 8"
	Scenario  string
	Seed      uint64
	Input     string // a guided run's input token: shown instead of Seed
	Strategy  string // scheduling strategy, e.g. "random"
	Mutant    string // re-introduced bug, "" for the code as it is
	Reproduce string // the command that replays this seed

	Failed     bool
	Verdict    string // one line: what failed first
	Violations []Violation
	Facts      []Fact // shown under the verdict (trace hash, steps, virtual time, ...)

	Story     string // the story to read first: the shrunk one when there is one
	StoryNote string // where the story comes from ("shrunk from ... in N runs")
	Plan      string // the seed's whole plan, shown folded; "" to leave out

	Timeline Timeline

	// Porcupine is the page porcupine.Visualize wrote for this run, nil
	// when porcupine did not run; PorcupineNote says why it is missing.
	Porcupine     []byte
	PorcupineNote string
}

// Violation is one broken check.
type Violation struct {
	Oracle    string // e.g. "safety"
	Invariant string // e.g. "S3"
	At        time.Duration
	Message   string
	Lane      string // the goroutine lane it concerns, "" if none is known
}

// Fact is one labelled value of the run.
type Fact struct{ Name, Value string }

// Timeline is the run's simulated goroutines on virtual time.
type Timeline struct {
	End   time.Duration // the run's last virtual instant
	Lanes []Lane
	// Windows are the spans of virtual time drawn, one chart each (e.g.
	// the seconds around the first violation, then the whole run); none
	// draws the whole run once.
	Windows []Window
}

// Window is one chart's range of virtual time.
type Window struct {
	Title    string
	From, To time.Duration
}

// Lane is one simulated goroutine.
type Lane struct {
	Name string
	// Born and Died bound the goroutine's life; Exited false means it
	// was still there when the run ended.
	Born, Died time.Duration
	Exited     bool
	Highlight  bool // a violation concerns this goroutine
	Spans      []Span
	Points     []Point
}

// Span is something a goroutine spent virtual time on.
type Span struct {
	Kind       SpanKind
	Start, End time.Duration
	Label      string
}

// SpanKind says how a span is drawn. It is a closed set: the page's
// classes come from it, never from the caller's strings.
type SpanKind int

// Span kinds.
const (
	Timed   SpanKind = iota // a timed wait: a simulated call taking its time, or a wait with a timeout
	Sleep                   // sleeping until a time
	Blocked                 // waiting for another goroutine, with no timeout (a lock, a signal, an event)
)

func (k SpanKind) class() string {
	switch k {
	case Sleep:
		return "sleep"
	case Blocked:
		return "blocked"
	}
	return "timed"
}

// Point is what a goroutine did at one virtual instant (in virtual time
// most steps take none).
type Point struct {
	At    time.Duration
	Label string
}

//go:embed page.html.tmpl
var pageTemplate string

var tmpl = template.Must(template.New("page").Funcs(template.FuncMap{
	"dur": func(d time.Duration) string { return d.String() },
}).Parse(pageTemplate))

// view is what the template reads: the Page and what is computed from it.
type view struct {
	Page
	Charts    []chart
	Legend    []legendItem
	Porcupine string // the frame's document (srcdoc), "" if none
	First     *Violation
}

// Render writes the page.
func Render(w io.Writer, p Page) error {
	b, err := HTML(p)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// HTML renders the page into memory.
//
// Porcupine's page goes into an iframe's srcdoc as escaped text, so that
// its styles and scripts stay its own. The frame is not sandboxed: a
// sandboxed frame is cross-origin, Chromium lays it out apart from the
// page, and porcupine then measured its labels before it could, drawing
// boxes too small for their text (or nothing) in one load out of three.
func HTML(p Page) ([]byte, error) {
	v := view{Page: p, Charts: charts(p.Timeline, p.Violations), Legend: legend()}
	if len(p.Violations) > 0 {
		v.First = &p.Violations[0]
	}
	if len(p.Porcupine) > 0 {
		v.Porcupine = string(ScrollToFirstError(p.Porcupine))
	}
	var buf bytes.Buffer
	if err := tmpl.Execute(&buf, v); err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	return buf.Bytes(), nil
}

// scrollToErrorScript runs inside porcupine's page after its render(data):
// it finds the illegal linearization point (red) furthest left, i.e. the
// first error in time, among those porcupine shows, and scrolls the frame
// so that it is in the middle, then selects it the way porcupine's own
// "jump to first error" link does. The link's handler scrolls with
// scrollIntoView, which would also scroll the report around the frame:
// scrollIntoView is muted while the link is clicked, and the frame is
// scrolled with window.scrollTo, which moves the frame's view only.
const scrollToErrorScript = `<script>
(function () {
  var pts = Array.prototype.filter.call(
    document.querySelectorAll('.linearization-invalid.linearization-point'),
    function (p) { return !(p.parentElement && p.parentElement.classList.contains('hidden')) })
  if (pts.length === 0) { return }
  var first = pts[0]
  pts.forEach(function (p) {
    if (p.getBoundingClientRect().left < first.getBoundingClientRect().left) { first = p }
  })
  var jump = document.getElementById('jump-link')
  if (jump) {
    var into = Element.prototype.scrollIntoView
    Element.prototype.scrollIntoView = function () {}
    try { jump.dispatchEvent(new MouseEvent('click')) } finally { Element.prototype.scrollIntoView = into }
  }
  var r = first.getBoundingClientRect()
  window.scrollTo(window.scrollX + r.left + r.width / 2 - window.innerWidth / 2,
    window.scrollY + r.top + r.height / 2 - window.innerHeight / 2)
})()
</script>
`

// ScrollToFirstError returns porcupine's page (what porcupine.Visualize
// wrote) with scrollToErrorScript added at the end of its body, after the
// script that draws the history: opened, it shows the first error, not
// the start of the history.
func ScrollToFirstError(page []byte) []byte {
	i := bytes.LastIndex(page, []byte("</body>"))
	if i < 0 {
		i = len(page)
	}
	out := make([]byte, 0, len(page)+len(scrollToErrorScript))
	out = append(append(append(out, page[:i]...), scrollToErrorScript...), page[i:]...)
	return out
}
