package report

import (
	"bytes"
	"flag"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

var rewrite = flag.Bool("rewrite", false, "rewrite golden files in testdata/")

// fakePorcupine stands for the page porcupine.Visualize writes: a whole
// document with a script of its own.
const fakePorcupine = `<!doctype html><html><head><title>Porcupine</title></head><body>` +
	`<div id="canvas"></div><script>const data = {"a": "</b>"}; render(data)</script></body></html>`

// samplePage is a small run told the way simrun tells one.
func samplePage() Page {
	s := time.Second
	return Page{
		Title: "update-storm seed 8", Scenario: "update-storm", Seed: 8, Strategy: "random", Mutant: "B2",
		Reproduce: "go run ./cmd/simrun replay --scenario update-storm --seed 8 --strategy random --mutant B2",
		Failed:    true, Verdict: "update-storm seed 8: FAIL safety S3 at 3s: pod a (TR): SyncPod began after kill",
		Violations: []Violation{
			{Oracle: "safety", Invariant: "S3", At: 3 * s, Message: "pod a (TR): SyncPod began at 3s after kill", Lane: "worker/a"},
			{Oracle: "safety", Invariant: "S13", At: 3 * s, Message: "pod a (TR): SyncPod began again", Lane: "worker/a"},
			{Oracle: "liveness", Invariant: "L1", At: 30 * s, Message: "pod a: SyncTerminatingPod never ran", Lane: "worker/a"},
		},
		Facts:     []Fact{{"virtual time", "30s"}, {"steps", "120"}},
		Story:     "plan update-storm: 1 actions, 1 clients\n  0s client/0 update uid=a",
		StoryNote: "Shrunk from 16 actions to 1 actions in 32 runs.",
		Plan:      "plan update-storm: 3 actions, 1 clients\n  0s client/0 update uid=a\n  1s client/0 kill uid=a",
		Timeline: Timeline{End: 30 * s, Windows: []Window{{"around the first violation", 0, 8 * s}, {"whole run", 0, 30 * s}},
			Lanes: []Lane{
				{Name: "client/0", Born: 0, Died: 2 * s, Exited: true,
					Spans:  []Span{{Kind: Sleep, Start: 0, End: s, Label: "sleep 1s"}},
					Points: []Point{{At: 0, Label: "lock podLock"}, {At: s, Label: "2 steps\nnotify updates/a\nexit"}}},
				{Name: "worker/a", Born: 0, Highlight: true,
					Spans: []Span{{Kind: Timed, Start: 2 * s, End: 2*s + 264*time.Millisecond, Label: "event-block cancel/a#1 264ms"},
						{Kind: Blocked, Start: 3 * s, End: 30 * s, Label: "wait-block updates/a"}},
					Points: []Point{{At: 3 * s, Label: "wait updates/a true"}}},
			}},
		Porcupine: []byte(fakePorcupine),
	}
}

// TestGolden pins the page's bytes: a change to the page shows as a diff
// of testdata/page.golden.html (go test ./report -rewrite to accept it).
func TestGolden(t *testing.T) {
	got, err := HTML(samplePage())
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", "page.golden.html")
	if *rewrite {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./report -rewrite writes it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("the page differs from %s (go test ./report -rewrite, then look at the diff)", path)
	}
}

// TestDeterministic: the same Page, the same bytes, however often.
func TestDeterministic(t *testing.T) {
	first, err := HTML(samplePage())
	if err != nil {
		t.Fatal(err)
	}
	for range 5 {
		again, _ := HTML(samplePage())
		if !bytes.Equal(first, again) {
			t.Fatal("two renderings of one Page differ")
		}
	}
}

const hostile = `</script><img src=x onerror=alert(1)>"'&<marquee>`

// TestEscapesEverything puts markup into every string a caller gives and
// checks that none of it reaches the page as markup.
func TestEscapesEverything(t *testing.T) {
	p := samplePage()
	for _, s := range []*string{&p.Title, &p.Scenario, &p.Strategy, &p.Mutant, &p.Reproduce, &p.Verdict, &p.Story,
		&p.StoryNote, &p.Plan, &p.Violations[0].Oracle, &p.Violations[0].Invariant, &p.Violations[0].Message,
		&p.Violations[0].Lane, &p.Facts[0].Name, &p.Facts[0].Value, &p.Timeline.Windows[0].Title,
		&p.Timeline.Lanes[1].Name, &p.Timeline.Lanes[1].Spans[0].Label, &p.Timeline.Lanes[1].Points[0].Label} {
		*s += hostile
	}
	p.Porcupine = nil
	p.PorcupineNote = hostile
	got, err := HTML(p)
	if err != nil {
		t.Fatal(err)
	}
	page := string(got)
	for _, bad := range []string{"<img", "<script", "</script>", "<marquee"} {
		if strings.Contains(page, bad) {
			t.Errorf("the page holds %q: a caller's string became markup", bad)
		}
	}
	if n := strings.Count(page, "&lt;img src=x onerror=alert(1)&gt;"); n < 15 {
		t.Errorf("the hostile string shows escaped %d times, want every field (at least 15)", n)
	}
}

// TestPorcupineEmbeddedIntact: the frame's srcdoc, unescaped the way a
// browser does, is porcupine's page with the scroll script, byte for byte.
func TestPorcupineEmbeddedIntact(t *testing.T) {
	got, err := HTML(samplePage())
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`srcdoc="([^"]*)"`).FindSubmatch(got)
	if m == nil {
		t.Fatal("no iframe srcdoc in the page")
	}
	doc := html.UnescapeString(string(m[1]))
	if want := string(ScrollToFirstError([]byte(fakePorcupine))); doc != want {
		t.Errorf("srcdoc holds\n%s\nwant\n%s", doc, want)
	}
	if !strings.Contains(doc, "render(data)</script>"+scrollToErrorScript+"</body>") {
		t.Error("the scroll script is not right after porcupine's own, inside its body")
	}
}

// TestNoNetwork: nothing on the page is fetched: no src, no links out,
// and a Content-Security-Policy that would refuse them anyway.
func TestNoNetwork(t *testing.T) {
	got, err := HTML(samplePage())
	if err != nil {
		t.Fatal(err)
	}
	page := string(got)
	for _, m := range regexp.MustCompile(`(?i)\b(src|href|action|url)\s*[=(]\s*["']?([^"' )>]*)`).FindAllStringSubmatch(page, -1) {
		if !strings.HasPrefix(m[2], "#") {
			t.Errorf("the page loads or links %q", m[0])
		}
	}
	if !strings.Contains(page, `content="default-src 'none';`) {
		t.Error("no Content-Security-Policy refusing the network")
	}
}

func TestTicksAreRound(t *testing.T) {
	cases := []struct {
		from, to time.Duration
		want     string
	}{
		{0, 12 * time.Second, "[0s 2s 4s 6s 8s 10s 12s]"},
		{0, 249 * time.Second, "[0s 50s 1m40s 2m30s 3m20s]"},
		{1500 * time.Millisecond, 3 * time.Second, "[1.6s 1.8s 2s 2.2s 2.4s 2.6s 2.8s 3s]"},
	}
	for _, c := range cases {
		if got := durations(ticks(c.from, c.to)); got != c.want {
			t.Errorf("ticks(%v, %v) = %s, want %s", c.from, c.to, got, c.want)
		}
	}
}

func durations(ds []time.Duration) string {
	parts := make([]string, len(ds))
	for i, d := range ds {
		parts[i] = d.String()
	}
	return "[" + strings.Join(parts, " ") + "]"
}

// TestViolationLabelsDoNotOverlap: labels of violations close in time go
// on rows of their own, and the chart grows to hold them.
func TestViolationLabelsDoNotOverlap(t *testing.T) {
	vs := []Violation{{Oracle: "safety", Invariant: "S3", At: 3 * time.Second},
		{Oracle: "safety", Invariant: "S13", At: 3100 * time.Millisecond},
		{Oracle: "liveness", Invariant: "L1", At: 10 * time.Second}}
	marks, rows := markers(vs, scale{0, 10 * time.Second})
	if len(marks) != 3 || rows != 2 {
		t.Fatalf("got %d markers on %d rows, want 3 on 2", len(marks), rows)
	}
	if marks[0].LabelY == marks[1].LabelY || marks[2].LabelY != marks[0].LabelY {
		t.Errorf("rows: %s %s %s, want the second alone on the second row", marks[0].LabelY, marks[1].LabelY, marks[2].LabelY)
	}
	if marks[2].Anchor != "end" {
		t.Errorf("a label near the right edge is anchored %q, want end", marks[2].Anchor)
	}
}

// TestPointsMergeWithinATick: a long run's many instants cost one tick per
// tick's width, not one per instant.
func TestPointsMergeWithinATick(t *testing.T) {
	var l Lane
	for i := range 10000 {
		l.Points = append(l.Points, Point{At: time.Duration(i) * time.Millisecond, Label: "step"})
	}
	got := points(l, scale{0, 10000 * time.Second}, 0)
	if len(got) != 1 || !strings.Contains(got[0].Title, "and 9999 more instants") {
		t.Fatalf("10,000 instants within one tick: %d ticks, first %q", len(got), got[0].Title)
	}
	if got := points(l, scale{0, 10 * time.Second}, 0); len(got) < 400 || len(got) > int(plotWidth/pointWidth)+1 {
		t.Errorf("10,000 instants over the whole width: %d ticks, want about one per tick's width", len(got))
	}
}

// TestInputShownInsteadOfSeed: a guided run's page names its input, not
// a seed (its Seed means nothing); a seed's page names the seed.
func TestInputShownInsteadOfSeed(t *testing.T) {
	p := samplePage()
	p.Input = "g1:AbC-_x"
	data, err := HTML(p)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(data, []byte(`guided input <b class="mono token">g1:AbC-_x</b>`)) || bytes.Contains(data, []byte("seed <b>8</b>")) {
		t.Error("the page of a guided run does not show its input instead of its seed")
	}
	data, _ = HTML(samplePage())
	if !bytes.Contains(data, []byte("seed <b>8</b>")) || bytes.Contains(data, []byte("guided input")) {
		t.Error("the page of a seed does not show the seed")
	}
}
