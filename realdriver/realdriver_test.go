package realdriver

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/podsim/podsim/plan"
)

// step is a move of a toy target: "step N".
type step int

func (s step) String() string { return fmt.Sprintf("step %d", int(s)) }

func parseStep(line string) (step, error) {
	n, ok := strings.CutPrefix(line, "step ")
	i, err := strconv.Atoi(n)
	if !ok || err != nil {
		return 0, fmt.Errorf("%q: want step N", line)
	}
	return step(i), nil
}

// TestScriptRoundTrip: comments and blank lines are skipped, expect lines
// are returned apart, FormatScript writes what ParseScript reads, and a bad
// line is reported with its line number.
func TestScriptRoundTrip(t *testing.T) {
	moves, expect, err := ParseScript("# a script\nstep 1\n\n  step 2  \nexpect G1 M1\nstep 3\n", parseStep)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(moves, []step{1, 2, 3}) || !slices.Equal(expect, []string{"G1", "M1"}) {
		t.Fatalf("ParseScript = %v, %v", moves, expect)
	}
	if got := FormatScript(moves); got != "step 1\nstep 2\nstep 3\n" {
		t.Fatalf("FormatScript = %q", got)
	}
	if _, _, err := ParseScript("step 1\nstop 2\n", parseStep); err == nil || err.Error() != `line 2: "stop 2": want step N` {
		t.Fatalf("bad line: err = %v", err)
	}
}

// TestParseOutcome: a name reads back as its index; an unknown one lists
// the names.
func TestParseOutcome(t *testing.T) {
	names := []string{"ok", "fail", "missing", "dead"}
	if o, err := ParseOutcome[uint8](names, "missing"); err != nil || o != 2 {
		t.Fatalf("ParseOutcome(missing) = %d, %v", o, err)
	}
	_, err := ParseOutcome[uint8](names, "slow")
	if err == nil || err.Error() != `unknown outcome "slow" (want ok, fail, missing or dead)` {
		t.Fatalf("ParseOutcome(slow): err = %v", err)
	}
}

// TestShrinkKeepsWhatTheFindingNeeds: the replay is run on every
// candidate and the result judged by keep.
func TestShrinkKeepsWhatTheFindingNeeds(t *testing.T) {
	run := func(ms []step) int {
		return len(slices.DeleteFunc(slices.Clone(ms), func(s step) bool { return s%3 != 0 }))
	}
	got := Shrink([]step{1, 2, 3, 4, 5, 6, 7}, run, func(n int) bool { return n == 2 })
	if !slices.Equal(got, []step{3, 6}) {
		t.Fatalf("Shrink = %v, want [3 6]", got)
	}
}

type call struct {
	key string
	n   int
}

// TestParkedOrderAndUnpark: Parked sorts by key, keeping arrival order
// within a key, and leaves its input alone; Unpark takes the first match.
func TestParkedOrderAndUnpark(t *testing.T) {
	parked := []call{{"b", 1}, {"a", 2}, {"b", 3}, {"a", 4}}
	got := Parked(parked, func(c call) string { return c.key })
	if want := []call{{"a", 2}, {"a", 4}, {"b", 1}, {"b", 3}}; !slices.Equal(got, want) {
		t.Fatalf("Parked = %v, want %v", got, want)
	}
	if parked[0] != (call{"b", 1}) {
		t.Fatalf("Parked changed its input: %v", parked)
	}
	c, ok := Unpark(&parked, func(c call) bool { return c.key == "a" })
	if !ok || c != (call{"a", 2}) || len(parked) != 3 || parked[1] != (call{"b", 3}) {
		t.Fatalf("Unpark = %v, %v; left %v", c, ok, parked)
	}
	if _, ok := Unpark(&parked, func(c call) bool { return c.key == "z" }); ok || len(parked) != 3 {
		t.Fatalf("Unpark of nothing parked: ok, left %v", parked)
	}
}

type finding struct{ class, text string }

func (f finding) String() string { return "[" + ClassLabel(f.class) + "] " + f.text }

func classOf(f finding) string { return f.class }

// TestClasses: Unexplained keeps the classless findings; Classes lists
// each class once, in order of first appearance.
func TestClasses(t *testing.T) {
	fs := []finding{{"G1", "a"}, {"", "b"}, {"G1", "c"}, {"M1", "d"}, {"", "e"}}
	if got := Unexplained(fs, classOf); !slices.Equal(got, []finding{{"", "b"}, {"", "e"}}) {
		t.Fatalf("Unexplained = %v", got)
	}
	if got := Classes(fs, classOf); !slices.Equal(got, []string{"G1", "", "M1"}) {
		t.Fatalf("Classes = %q", got)
	}
	if ClassLabel("") != "UNEXPLAINED" || ClassLabel("G2") != "G2" {
		t.Fatal("ClassLabel")
	}
}

// errorsOf records a sweep's errors instead of failing the test.
type errorsOf struct {
	testing.TB
	errs []string
}

func (e *errorsOf) Helper() {}

func (e *errorsOf) Errorf(format string, args ...any) {
	e.errs = append(e.errs, fmt.Sprintf(format, args...))
}

// TestSweepTally: per family the seeds with findings and per class its
// count and first seed, classes sorted, UNEXPLAINED for ""; -sweep.family
// skips the others; every unexplained finding is an error, the first ten
// printed and the rest counted.
func TestSweepTally(t *testing.T) {
	fams := []plan.Family{{Name: "one"}, {Name: "two"}}
	run := func(f plan.Family, seed uint64) SeedVerdict {
		switch {
		case f.Name == "one" && seed%2 == 0:
			return SeedVerdict{Failed: true, Classes: []string{"G2", "G1"}}
		case f.Name == "two":
			return SeedVerdict{Failed: true, Classes: []string{""},
				Unexplained: Stringers([]finding{{"", "x"}, {"", "y"}, {"", "z"}, {"", "w"}})}
		}
		return SeedVerdict{}
	}
	var report strings.Builder
	rec := &errorsOf{TB: t}
	tot := Sweep(rec, &report, fams, "", 6, 3, 4, run)
	want := "one         3 seeds      2 with findings: G1=2 (first seed 4) G2=2 (first seed 4)\n" +
		"two         3 seeds      3 with findings: UNEXPLAINED=3 (first seed 4)\n"
	if report.String() != want {
		t.Fatalf("report:\n%s\nwant:\n%s", report.String(), want)
	}
	if tot != (SweepTotals{Seeds: 6, Failed: 5, Unexplained: 12}) {
		t.Fatalf("totals = %+v", tot)
	}
	if len(rec.errs) != 11 || rec.errs[0] != "two seed 4: [UNEXPLAINED] x" || rec.errs[9] != "two seed 6: [UNEXPLAINED] y" ||
		!strings.HasPrefix(rec.errs[10], "2 more unexplained findings not listed") {
		t.Fatalf("errors = %q", rec.errs)
	}
	report.Reset()
	if tot := Sweep(rec, &report, fams, "one", 3, 1, 2, run); tot.Seeds != 1 || !strings.HasPrefix(report.String(), "one ") {
		t.Fatalf("only one: %+v %q", tot, report.String())
	}
}

// TestTranscript: header, script, findings, trace header, trace.
func TestTranscript(t *testing.T) {
	var b strings.Builder
	Transcript(&b, "# h\n", "step 1\n", []finding{{"G1", "f"}}, "# trace:\n", []string{"t1", "t2"})
	if want := "# h\nstep 1\n# finding: [G1] f\n# trace:\n#   t1\n#   t2\n"; b.String() != want {
		t.Fatalf("Transcript = %q, want %q", b.String(), want)
	}
}

// TestGrowth: distinct tuples and transitions, and the curve at powers
// of ten.
func TestGrowth(t *testing.T) {
	var g Growth
	for i := range 100 {
		g.Add([]string{fmt.Sprint(i % 15), "x"}, []string{fmt.Sprint(i % 3)})
	}
	if g.Tuples() != 16 || g.Transitions() != 3 {
		t.Fatalf("%d tuples, %d transitions; want 16, 3", g.Tuples(), g.Transitions())
	}
	if got, want := g.Line("runs"), "coverage: 16 tuples, 3 transitions (tuples/transitions after runs 10: 11/3, 100: 16/3)"; got != want {
		t.Fatalf("Line = %q, want %q", got, want)
	}
}

// TestSweepRunsReports: the per-family line and the coverage line, the
// first label of each class, and unexplained findings counted.
func TestSweepRunsReports(t *testing.T) {
	var report strings.Builder
	fams := []plan.Family{{Name: "a"}, {Name: "b"}}
	tot := SweepRuns(t, &report, fams, "b", 3, "runs", func(f plan.Family, emit func(uint64, SeedVerdict)) {
		emit(7, SeedVerdict{Tuples: []string{"t1"}})
		emit(8, SeedVerdict{Failed: true, Classes: []string{"G1"}, Tuples: []string{"t1", "t2"}, Transitions: []string{"t1>t2"}})
		emit(9, SeedVerdict{Failed: true, Classes: []string{"G1"}})
	})
	want := "b        3 runs      2 with findings: G1=2 (first run 8)\n    coverage: 2 tuples, 1 transitions\n"
	if report.String() != want || tot != (SweepTotals{Seeds: 3, Failed: 2}) {
		t.Fatalf("report %q, totals %+v; want %q", report.String(), tot, want)
	}
}
