package sim

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestKeptLinesAreRenderedLines: Trace and TraceSHA256, which copy a
// repeated record's line from the render's kept texts (lineCache), give the
// bytes of rendering every record afresh, on runs whose records fill and
// overflow the slots many times (8 goroutines, 4 mutexes, random sleeps and
// draws), one after another with other names through the same kept
// texts, so a kept text of one run cannot reach another's.
func TestKeptLinesAreRenderedLines(t *testing.T) {
	var kept lineCache // shared by the runs, as a pooled hasher's is
	for seed := range uint64(4) {
		s := New(Options{Source: NewPCG(seed)})
		mus := []*Mutex{}
		for i := range 4 {
			mus = append(mus, s.NewMutex("mu"+strconv.Itoa(i)+"/run"+strconv.FormatUint(seed, 10)))
		}
		for g := range 8 {
			s.Go("g"+strconv.Itoa(g)+"/run"+strconv.FormatUint(seed, 10), func() {
				for range 300 {
					mu := mus[s.Intn(len(mus))]
					mu.Lock()
					if s.Intn(5) == 0 {
						s.Sleep(time.Duration(1+s.Intn(40)) * time.Millisecond)
					}
					mu.Unlock()
				}
			})
		}
		if err := s.Run(); err != nil {
			t.Fatal(err)
		}
		want := renderAfresh(s)
		if got := s.Trace(); got != want {
			t.Fatalf("seed %d: Trace differs from the records rendered afresh", seed)
		}
		var b strings.Builder
		if s.renderTrace(nil, &b, &kept); b.String() != want {
			t.Fatalf("seed %d: the render with the texts kept from the runs before differs from the records rendered afresh", seed)
		}
		sum := sha256.Sum256([]byte(want))
		if got := s.TraceSHA256(); got != hex.EncodeToString(sum[:]) {
			t.Fatalf("seed %d: TraceSHA256 = %s, want the SHA-256 of the records rendered afresh", seed, got)
		}
		s.Close()
	}
}

// renderAfresh is s's trace, every line rendered from its record.
func renderAfresh(s *Scheduler) string {
	var b []byte
	at := []byte("0s")
	for _, r := range append(concatRecords(s.trace.full), s.trace.last...) {
		if r.op == opAdvance {
			at = []byte(time.Duration(r.arg).String())
		}
		b = append(s.appendRecordText(append(b, at...), &r, nil), '\n')
	}
	return string(b)
}

func concatRecords(chunks [][]record) []record {
	var out []record
	for _, c := range chunks {
		out = append(out, c...)
	}
	return out
}
