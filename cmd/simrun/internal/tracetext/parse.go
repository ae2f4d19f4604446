// Package tracetext reads simrun's canonical trace text back: it checks a
// saved trace file (Parse), splits a trace into records (Lines), and draws
// the two timelines simrun writes from it: Chrome trace-event JSON on
// virtual time (Chrome, timeline.json) and the HTML report's lanes
// (Timeline, LaneOf, Windows). It knows the trace's text only, no run.
package tracetext

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
// Parse checks the shape of every line, not the meaning of ops, so a
// newer scheduler's ops still parse; what it rejects is what cannot be a
// trace: no lines, a last line cut short, text that is not records, or
// time going backwards.

// maxTraceBytes bounds a trace file (the longest runs write a few MB).
const maxTraceBytes = 512 << 20

func Parse(data []byte) ([]string, error) {
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
		at, err := RecordTime(line)
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

// RecordTime checks one record's shape and returns its time.
func RecordTime(line string) (time.Duration, error) {
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

// Lines splits a canonical trace into records.
func Lines(trace string) []string {
	return strings.Split(strings.TrimSuffix(trace, "\n"), "\n")
}
