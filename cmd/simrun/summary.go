package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/podsim/podsim/run"
)

// maxListed bounds the failures (and recheck notes) a sweep keeps to print:
// the summary is constant-memory whatever --seeds is. Every failure is in
// the --json and --junit files.
const maxListed = 100

// summary is what a sweep prints at the end, gathered as results come in,
// in bounded memory: per family its counts, worker time and coverage marks
// (a family has a handful), the first maxListed failures and notes.
type summary struct {
	strategy string
	rows     []*familyRow // in the order the families first completed a seed
	failed   uint64
	listed   []string // FAIL lines of the first failures
	notes    []string // recheck's lines (nondeterminism, artifacts not written)
	dropped  uint64   // notes past maxListed
}

type familyRow struct {
	name                  string
	seeds, passed, failed uint64
	busy                  time.Duration
	marks                 map[string]uint64
}

func (s *summary) row(name string) *familyRow {
	if n := len(s.rows); n > 0 && s.rows[n-1].name == name {
		return s.rows[n-1]
	}
	for _, r := range s.rows {
		if r.name == name {
			return r
		}
	}
	r := &familyRow{name: name, marks: map[string]uint64{}}
	s.rows = append(s.rows, r)
	return r
}

// add counts one seed's outcome.
func (s *summary) add(o outcome) {
	r, rw := o.res, s.row(o.res.Family)
	rw.seeds++
	rw.busy += o.took
	for _, m := range r.Marks {
		rw.marks[m]++
	}
	for _, n := range o.notes {
		if len(s.notes) < maxListed {
			s.notes = append(s.notes, n)
		} else {
			s.dropped++
		}
	}
	if !r.Failed() {
		rw.passed++
		return
	}
	rw.failed++
	s.failed++
	if len(s.listed) < maxListed {
		s.listed = append(s.listed, fmt.Sprintf("FAIL %s seed %d: %s\n  reproduce: %s\n", r.Family, r.Seed,
			failureMessage(r), reproduceResult(r, s.strategy)+observableArg(r.ObservableOnly)))
	}
}

// print writes one line per listed failure (with the command that
// reproduces it), a table per family, the coverage marks and recheck's
// notes. Everything it prints is a function of the results alone, except
// the seeds/s column, printed when timing is on: seeds per second of one
// core, checks included.
func (s *summary) print(w io.Writer, timing bool) {
	for _, l := range s.listed {
		fmt.Fprint(w, l)
	}
	if more := s.failed - uint64(len(s.listed)); more > 0 {
		fmt.Fprintf(w, "… and %d more failing seeds (the first %d are listed; --json or --junit has every one)\n", more, maxListed)
	}
	header := fmt.Sprintf("%-32s %8s %8s %8s", "family", "seeds", "passed", "failed")
	if timing {
		header += fmt.Sprintf(" %13s", "seeds/s/core")
	}
	fmt.Fprintln(w, header)
	for _, rw := range s.rows {
		line := fmt.Sprintf("%-32s %8d %8d %8d", rw.name, rw.seeds, rw.passed, rw.failed)
		if timing && rw.busy > 0 {
			line += fmt.Sprintf(" %13.0f", float64(rw.seeds)/rw.busy.Seconds())
		}
		fmt.Fprintln(w, line)
	}
	fmt.Fprintln(w, "\ncoverage marks (seeds that reached each situation):")
	for _, rw := range s.rows {
		fmt.Fprintf(w, "  %s: %s\n", rw.name, formatMarks(rw.marks))
	}
	for _, n := range s.notes {
		fmt.Fprint(w, n)
	}
	if s.dropped > 0 {
		fmt.Fprintf(w, "… and %d more recheck notes\n", s.dropped)
	}
}

// formatMarks lists marks by name with their counts.
func formatMarks(marks map[string]uint64) string {
	names := make([]string, 0, len(marks))
	for m := range marks {
		names = append(names, m)
	}
	slices.Sort(names)
	parts := make([]string, len(names))
	for i, m := range names {
		parts[i] = fmt.Sprintf("%s %d", m, marks[m])
	}
	if len(parts) == 0 {
		return "(none)"
	}
	return strings.Join(parts, ", ")
}

func failureMessage(r run.Result) string {
	if r.Err != nil {
		return r.Err.Error()
	}
	return r.Violations[0].String()
}
