package history

import (
	"slices"
	"testing"
)

// TestArraysCopyOnWrite: every array Insert and Make hand out is memory of
// its own within a run: an array kept while later ones are made still
// holds what it held, and Insert answers as slices.Insert does. After
// Reset the buffer is handed out again, cleared. It fails when an array is
// handed out twice in a run, when Make's capacity reaches into the next
// array, or when Reset leaves a value behind.
func TestArraysCopyOnWrite(t *testing.T) {
	var a Arrays[string]
	for run := range 3 {
		var s []string
		var kept [][]string
		var want [][]string
		for i := range 100 {
			v := string(rune('a' + i%26))
			at := (i * 7) % (len(s) + 1)
			next := a.Insert(s, at, v)
			if w := slices.Insert(slices.Clone(s), at, v); !slices.Equal(next, w) {
				t.Fatalf("run %d: Insert(%v, %d, %q) = %v, want %v", run, s, at, v, next, w)
			}
			kept, want = append(kept, s), append(want, slices.Clone(s))
			s = next
			m := a.Make(3)
			m = append(m, "x", "y", "z") // fills its own room only
			if len(m) != 3 || cap(m) != 3 {
				t.Fatalf("Make(3) gave len %d cap %d after three appends", len(m), cap(m))
			}
		}
		for i := range kept {
			if !slices.Equal(kept[i], want[i]) {
				t.Fatalf("run %d: array %d was written after it was handed out: %v, was %v", run, i, kept[i], want[i])
			}
		}
		a.Reset()
		for i, v := range a.buf[:cap(a.buf)] {
			if v != "" {
				t.Fatalf("run %d: Reset left %q at %d", run, v, i)
			}
		}
	}
}
