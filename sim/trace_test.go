package sim

import (
	"crypto/sha256"
	"encoding/hex"
	"math"
	"strings"
	"testing"
	"time"
)

// TestTraceSHA256LongTrace: TraceSHA256 hashes the trace in chunks as it
// renders it; on a trace many chunks long it must equal the SHA-256 of
// Trace, whose lines are one per record, with the time of the last clock
// advance.
func TestTraceSHA256LongTrace(t *testing.T) {
	s := New(Options{Source: NewPCG(1)})
	defer s.Close()
	mu := s.NewMutex("mu")
	for g := 0; g < 3; g++ {
		s.Go("g"+string(rune('a'+g)), func() {
			for i := 0; i < 2000; i++ {
				mu.Lock()
				if s.Intn(7) == 0 {
					s.Sleep(time.Duration(1+s.Intn(900)) * time.Millisecond)
				}
				mu.Unlock()
			}
		})
	}
	if err := s.Run(); err != nil {
		t.Fatal(err)
	}
	trace := s.Trace()
	if len(trace) < 4*traceChunk {
		t.Fatalf("got a trace of %d bytes, want several chunks of %d", len(trace), traceChunk)
	}
	lines := strings.Split(strings.TrimSuffix(trace, "\n"), "\n")
	if len(lines) != s.TraceLen() {
		t.Fatalf("got %d lines, want one per record (%d)", len(lines), s.TraceLen())
	}
	at := time.Duration(0).String()
	for i, line := range lines {
		if strings.HasSuffix(line, " advance clock") {
			at, _, _ = strings.Cut(line, " ")
		}
		if !strings.HasPrefix(line, at+" ") {
			t.Fatalf("line %d %q: want it to start with the time of the last advance, %s", i, line, at)
		}
	}
	sum := sha256.Sum256([]byte(trace))
	if got, want := s.TraceSHA256(), hex.EncodeToString(sum[:]); got != want {
		t.Fatalf("TraceSHA256 = %s, want SHA-256 of Trace %s", got, want)
	}
}

// TestDurationTextsAreDurationStrings: the renderer's kept duration texts
// read as time.Duration.String, whatever the order of the durations and
// however many share a slot (512 durations in 8 slots, twice over, then
// every one again out of order).
func TestDurationTextsAreDurationStrings(t *testing.T) {
	var durs durationTexts
	var ds []time.Duration
	for i := range 512 {
		ds = append(ds, time.Duration(i)*137*time.Millisecond, -time.Duration(i)*time.Nanosecond)
	}
	ds = append(ds, 0, time.Duration(math.MaxInt64), time.Duration(math.MinInt64))
	check := func(d time.Duration) {
		if got := string(durs.append([]byte("x"), d)); got != "x"+d.String() {
			t.Fatalf("got %q for %d, want %q", got, int64(d), "x"+d.String())
		}
	}
	for range 2 {
		for _, d := range ds {
			check(d)
		}
	}
	for i := range ds {
		check(ds[(i*7919)%len(ds)])
	}
	var none *durationTexts
	if got := string(none.append(nil, 90*time.Second)); got != "1m30s" {
		t.Fatalf("got %q without kept texts, want 1m30s", got)
	}
}
