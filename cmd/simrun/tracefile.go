package main

import "fmt"

// divergence is where two traces of what should be one run part.
type divergence struct {
	line      int    // 1-based record number
	want, got string // "" past a trace's end
}

func (d divergence) String() string {
	show := func(s string) string {
		if s == "" {
			return "(end of trace)"
		}
		return s
	}
	return fmt.Sprintf("first divergent step: record %d\n    expected: %s\n    got:      %s", d.line, show(d.want), show(d.got))
}

// firstDivergence compares two traces record by record; ok is false when
// they are the same.
func firstDivergence(want, got []string) (divergence, bool) {
	for i := 0; i < max(len(want), len(got)); i++ {
		var w, g string
		if i < len(want) {
			w = want[i]
		}
		if i < len(got) {
			g = got[i]
		}
		if w != g || i >= len(want) || i >= len(got) {
			return divergence{line: i + 1, want: w, got: g}, true
		}
	}
	return divergence{}, false
}
