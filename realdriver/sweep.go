package realdriver

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/podsim/podsim/plan"
)

// SeedVerdict is what a sweep keeps of one seed's run.
type SeedVerdict struct {
	Failed bool
	// Classes are the distinct classes of the run's findings ("" for
	// unexplained ones).
	Classes []string
	// Unexplained are the unexplained findings, as printed.
	Unexplained []fmt.Stringer
	// Tuples and Transitions are the state coverage the run reached
	// (oracle/coverage's tuples and transition keys), if its target
	// records any.
	Tuples, Transitions []string
}

// SweepTotals count a sweep's seeds, those with findings, and the
// unexplained findings.
type SweepTotals struct{ Seeds, Failed, Unexplained int }

// listedUnexplained is how many unexplained findings a sweep prints; the
// rest it counts.
const listedUnexplained = 10

// Sweep runs seeds seeds, from start, of every family (of only the one
// called only, unless only is "") and writes to report, per family, a line:
// the name padded to width, the seeds, the seeds with findings, and per
// class (sorted) how many seeds found it and the first seed that did; then,
// if the runs recorded coverage, a line with the distinct tuples and
// transitions reached (CoverageLine). Each unexplained finding fails t;
// the first ten are printed, then how many more there are.
func Sweep(t testing.TB, report *strings.Builder, families []plan.Family, only string, width, seeds int, start uint64,
	run func(plan.Family, uint64) SeedVerdict) SweepTotals {
	t.Helper()
	return SweepRuns(t, report, families, only, width, "seeds", func(f plan.Family, emit func(uint64, SeedVerdict)) {
		for i := range seeds {
			seed := start + uint64(i)
			emit(seed, run(f, seed))
		}
	})
}

// SweepRuns is Sweep over runs that runs makes itself, one family at a
// time, handing each run's verdict to emit with its label (a seed; a
// guided run's index), in order; unit names them in the report ("seeds",
// "runs").
func SweepRuns(t testing.TB, report *strings.Builder, families []plan.Family, only string, width int, unit string,
	runs func(f plan.Family, emit func(label uint64, v SeedVerdict))) SweepTotals {
	t.Helper()
	var tot SweepTotals
	for _, f := range families {
		if only != "" && f.Name != only {
			continue
		}
		count, first := map[string]int{}, map[string]uint64{}
		famRuns, famFailed := 0, 0
		var cov Growth
		runs(f, func(label uint64, v SeedVerdict) {
			tot.Seeds++
			famRuns++
			if v.Failed {
				tot.Failed++
				famFailed++
			}
			for _, c := range v.Classes {
				if _, ok := first[c]; !ok {
					first[c] = label
				}
				count[c]++
			}
			for _, u := range v.Unexplained {
				tot.Unexplained++
				if tot.Unexplained <= listedUnexplained {
					t.Errorf("%s %s %d: %s", f.Name, strings.TrimSuffix(unit, "s"), label, u)
				}
			}
			cov.Add(v.Tuples, v.Transitions)
		})
		fmt.Fprintf(report, "%-*s %6d %s %6d with findings:", width, f.Name, famRuns, unit, famFailed)
		classes := make([]string, 0, len(count))
		for c := range count {
			classes = append(classes, c)
		}
		slices.Sort(classes)
		for _, c := range classes {
			fmt.Fprintf(report, " %s=%d (first %s %d)", ClassLabel(c), count[c], strings.TrimSuffix(unit, "s"), first[c])
		}
		report.WriteString("\n")
		if cov.Tuples() > 0 {
			fmt.Fprintf(report, "%-*s %s\n", width, "", cov.Line(unit))
		}
	}
	if more := tot.Unexplained - listedUnexplained; more > 0 {
		t.Errorf("%d more unexplained findings not listed (the first %d are above; each family's line counts its runs)", more, listedUnexplained)
	}
	return tot
}

// Stringers are xs as fmt.Stringers (a SeedVerdict's Unexplained).
func Stringers[S fmt.Stringer](xs []S) []fmt.Stringer {
	out := make([]fmt.Stringer, len(xs))
	for i, x := range xs {
		out[i] = x
	}
	return out
}

// Transcript writes a run for a reader: header, the script, a
// "# finding: " line per finding, then traceHeader (may be "") and a
// "#   " line per trace line; the shrink and replay tools print it.
func Transcript[F fmt.Stringer](w io.Writer, header, script string, findings []F, traceHeader string, trace []string) {
	fmt.Fprint(w, header, script)
	for _, f := range findings {
		fmt.Fprintf(w, "# finding: %s\n", f)
	}
	fmt.Fprint(w, traceHeader)
	for _, line := range trace {
		fmt.Fprintf(w, "#   %s\n", line)
	}
}
