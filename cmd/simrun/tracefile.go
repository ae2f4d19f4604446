package main

import (
	"fmt"
	"strings"
	"time"
)

// A saved canonical trace (replay --trace) is read back to compare a new
// replay with it: the file is the trace's bytes exactly, so sha256sum of
// the file is the hash replay prints. Each line is one record:
//
//	<virtual time> <goroutine> <op> [<object>] [<detail>]
//
// parseTrace checks the shape of every line, not the meaning of ops, so a
// newer scheduler's ops still parse; what it rejects is what cannot be a
// trace: no lines, a last line cut short, text that is not records, or
// time going backwards.

// maxTraceBytes bounds a trace file (the longest runs write a few MB).
const maxTraceBytes = 512 << 20

func parseTrace(data []byte) ([]string, error) {
	switch {
	case len(data) == 0:
		return nil, fmt.Errorf("empty trace file")
	case len(data) > maxTraceBytes:
		return nil, fmt.Errorf("trace file of %d bytes is larger than any trace (%d)", len(data), maxTraceBytes)
	case data[len(data)-1] != '\n':
		return nil, fmt.Errorf("truncated trace file: the last line has no newline")
	}
	lines := strings.Split(string(data[:len(data)-1]), "\n")
	var last time.Duration
	for i, line := range lines {
		at, err := traceRecordTime(line)
		if err != nil {
			return nil, fmt.Errorf("corrupt trace file: line %d: %v", i+1, err)
		}
		if at < last {
			return nil, fmt.Errorf("corrupt trace file: line %d: time %v before the previous line's %v", i+1, at, last)
		}
		last = at
	}
	return lines, nil
}

// traceRecordTime checks one record's shape and returns its time.
func traceRecordTime(line string) (time.Duration, error) {
	for _, r := range line {
		if r < ' ' || r == 0x7f {
			return 0, fmt.Errorf("control character %q", r)
		}
	}
	f := strings.Split(line, " ")
	if len(f) < 3 || f[1] == "" {
		return 0, fmt.Errorf("want <time> <goroutine> <op> ..., got %q", line)
	}
	at, err := time.ParseDuration(f[0])
	if err != nil || at < 0 || f[0] != at.String() {
		return 0, fmt.Errorf("bad virtual time %q", f[0])
	}
	if strings.Trim(f[2], "abcdefghijklmnopqrstuvwxyz-?") != "" || f[2] == "" {
		return 0, fmt.Errorf("bad operation %q", f[2])
	}
	return at, nil
}

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

// traceLines splits a canonical trace into records.
func traceLines(trace string) []string {
	return strings.Split(strings.TrimSuffix(trace, "\n"), "\n")
}
