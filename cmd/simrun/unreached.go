package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/podsim/podsim/plan"
)

// unreachedMarks judges the coverage marks of a finished sweep of the
// correct code (issue 17): a family whose declared mark stayed at zero in
// at least its declared minimum of seeds fails, named with the mark, on w
// (the sweep then exits 1); a shorter sweep only warns, on warn. It
// returns how many marks failed. reached counts the seeds that reached a
// mark of a family; seeds is how many seeds of the family ran.
func unreachedMarks(w, warn io.Writer, family string, seeds uint64, reached func(mark string) uint64) int {
	f, ok := plan.FamilyNamed(family)
	if !ok || seeds == 0 {
		return 0
	}
	unreached := f.Unreached(reached)
	if len(unreached) == 0 {
		return 0
	}
	if seeds < f.MinimumSeeds() {
		fmt.Fprintf(warn, "warning: %s: mark(s) %s unreached in %d seeds, fewer than the family's minimum %d: not judged\n",
			family, strings.Join(unreached, ", "), seeds, f.MinimumSeeds())
		return 0
	}
	for _, m := range unreached {
		fmt.Fprintf(w, "UNREACHED %s: mark %s reached in 0 of %d seeds (the family's minimum is %d)\n",
			family, m, seeds, f.MinimumSeeds())
	}
	return len(unreached)
}

// unreached judges every family row of the sweep (unreachedMarks).
func (s *summary) unreached(w, warn io.Writer) int {
	n := 0
	for _, rw := range s.rows {
		n += unreachedMarks(w, warn, rw.name, rw.seeds, func(m string) uint64 { return rw.marks[m] })
	}
	return n
}
