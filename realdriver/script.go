// Package realdriver holds what the drivers of the real targets
// (realkubelet: the real kubelet's pod workers; realvk: the real
// virtual-kubelet pod controller) share and what does not depend on the
// code they drive: their move scripts (parse, format, shrink), the order
// of the calls parked at their gates, the classes of their findings, and
// the sweep's per-family tally and a run's transcript. Each target keeps
// its own moves, calls, outcomes and findings; this package knows none of
// them (no kubelet, virtual-kubelet or rapid import).
package realdriver

import (
	"fmt"
	"strings"

	"github.com/podsim/podsim/shrink/ddmin"
)

// ParseScript reads a script: one move per line (parse reads a line);
// blank lines and lines starting with # are skipped; "expect CLASS" lines
// list the finding classes the script must produce (returned separately).
func ParseScript[M any](text string, parse func(string) (M, error)) (moves []M, expect []string, err error) {
	for n, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
			continue
		case strings.HasPrefix(line, "expect "):
			expect = append(expect, strings.Fields(line)[1:]...)
			continue
		}
		m, err := parse(line)
		if err != nil {
			return nil, nil, fmt.Errorf("line %d: %v", n+1, err)
		}
		moves = append(moves, m)
	}
	return moves, expect, nil
}

// FormatScript is the script of moves, one per line (each move's String).
func FormatScript[M fmt.Stringer](moves []M) string {
	var b strings.Builder
	for _, m := range moves {
		b.WriteString(m.String())
		b.WriteByte('\n')
	}
	return b.String()
}

// ParseOutcome reads the script word of an outcome: the index of s in
// names (an outcome's String is names[o]).
func ParseOutcome[O ~uint8](names []string, s string) (O, error) {
	for i, n := range names {
		if n == s {
			return O(i), nil
		}
	}
	return 0, fmt.Errorf("unknown outcome %q (want %s)", s, wordList(names))
}

// wordList is "a, b, c or d".
func wordList(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}

// Shrink removes moves from a failing script while keep still holds for
// the result of replaying what is left (run replays a script in a fresh
// bubble): first halves, then chunks, then single moves, until no single
// move can go (ddmin.Slice). The targets' replays skip moves that no
// longer apply (a release with nothing parked), so every candidate is a
// valid script.
func Shrink[M, R any](moves []M, run func([]M) R, keep func(R) bool) []M {
	return ddmin.Slice(moves, func(cand []M) bool { return keep(run(cand)) })
}
