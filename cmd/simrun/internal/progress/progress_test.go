package progress

import (
	"bytes"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestProgressPlainLines: off a terminal, progress is a plain line for the
// first unit and then one every plainEvery, with the rate and the time
// left, and nothing else.
func TestProgressPlainLines(t *testing.T) {
	var b bytes.Buffer
	p := New(&b, 20)
	at := p.began
	p.now = func() time.Time { return at }
	for i := 0; i < 20; i++ {
		at = at.Add(time.Second) // one seed a second: a line every fifth
		p.Tick()
	}
	p.Done()
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	want := []string{"1/20 seeds, 1/s, ETA 19s", "6/20 seeds, 1/s, ETA 14s", "11/20 seeds, 1/s, ETA 9s",
		"16/20 seeds, 1/s, ETA 4s"}
	if !slices.Equal(lines, want) || strings.Contains(b.String(), "\r") {
		t.Fatalf("got %q; want %q", lines, want)
	}
}
